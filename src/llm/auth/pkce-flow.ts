// The OAuth steps the Claude and ChatGPT sign-ins share: the authorize URL of a PKCE authorization-code
// flow, trading the code for tokens, and refreshing them. The providers differ only in their client, their
// URLs, the body their token endpoint reads (Claude's JSON, OpenAI's form) and the tokens they keep.
import { OAuthError, oauthErrorText, oauthFetch } from "./oauth-http.js";
import type { Tokens } from "./types.js";

export interface TokenEndpoint {
  url: string;
  clientId: string;
  /** How the endpoint wants its parameters: a JSON object or an urlencoded form. */
  body: "json" | "form";
  /** The tokens of a 200 answer; `previous` is what a refresh started from. */
  tokensOf(json: Record<string, unknown>, what: string, previous?: Tokens): Tokens;
}

/** The authorize URL of the PKCE flow: the standard parameters, then the provider's own. */
export function pkceAuthorizeUrl(
  authorizeUrl: string,
  client: { clientId: string; scope: string },
  params: { challenge: string; state: string; redirectUri: string },
  extra: Record<string, string> = {},
): string {
  const url = new URL(authorizeUrl);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: params.redirectUri,
    scope: client.scope,
    code_challenge: params.challenge,
    code_challenge_method: "S256",
    state: params.state,
    ...extra,
  }).toString();
  return url.toString();
}

function post(endpoint: TokenEndpoint, what: string, fields: Record<string, string>) {
  const body = { client_id: endpoint.clientId, ...fields };
  return oauthFetch(what, endpoint.url, endpoint.body === "json" ? { json: body } : { form: body });
}

/** Trades an authorization code (with its PKCE verifier and redirect URI, and what else the provider wants). */
export async function exchangeCode(
  endpoint: TokenEndpoint,
  what: string,
  fields: { code: string; code_verifier: string; redirect_uri: string } & Record<string, string>,
): Promise<Tokens> {
  const answer = await post(endpoint, what, { grant_type: "authorization_code", ...fields });
  if (answer.status !== 200)
    throw new OAuthError(`${what}: the token endpoint refused the code (${oauthErrorText(answer)})`);
  return endpoint.tokensOf(answer.json, what);
}

/** New tokens from the refresh token; a refusal (400/401/403) means only a new sign-in can help. */
export async function refreshTokens(endpoint: TokenEndpoint, what: string, tokens: Tokens): Promise<Tokens> {
  const answer = await post(endpoint, what, { grant_type: "refresh_token", refresh_token: tokens.refresh });
  if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
    throw new OAuthError(`${what} was refused (${oauthErrorText(answer)})`, true);
  }
  if (answer.status !== 200) throw new OAuthError(`${what} failed (${oauthErrorText(answer)})`, false);
  return endpoint.tokensOf(answer.json, what, tokens);
}

/** The answer's refresh token; a refresh may or may not rotate it, so without a new one the old stays. */
export function refreshTokenOf(json: Record<string, unknown>, previous?: Tokens): string {
  return typeof json.refresh_token === "string" ? json.refresh_token : (previous?.refresh ?? "");
}
