// Claude Pro/Max: the authorization-code flow with PKCE that Claude Code's own client uses (its public
// client id and its registered localhost redirect), then Bearer tokens with the OAuth beta header.
import { expiryFrom, OAuthError, oauthErrorText, oauthFetch, stringField } from "./oauth-http.js";
import type { SubscriptionProvider, Tokens } from "./types.js";

const CLIENT_ID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";
const SCOPES = "org:create_api_key user:profile user:inference";
const AUTHORIZE = "https://claude.ai/oauth/authorize";
const TOKEN = "https://platform.claude.com/v1/oauth/token";
export const CLAUDE_PREAMBLE = "You are Claude Code, Anthropic's official CLI for Claude.";

/** `base` moves both endpoints (tests, proxies): {base}/oauth/authorize and {base}/v1/oauth/token. */
export function claudeProvider(base?: string): SubscriptionProvider {
  const authorizeUrl = base ? `${base}/oauth/authorize` : AUTHORIZE;
  const tokenUrl = base ? `${base}/v1/oauth/token` : TOKEN;
  const tokensOf = (json: Record<string, unknown>, what: string, previous?: Tokens): Tokens => ({
    access: stringField(json, "access_token", what),
    // A refresh may or may not rotate the refresh token; keep the old one when no new one came.
    refresh: typeof json.refresh_token === "string" ? json.refresh_token : (previous?.refresh ?? ""),
    expires: expiryFrom(json),
  });
  return {
    id: "claude",
    systemPreamble: CLAUDE_PREAMBLE,
    browser: {
      callbackPort: 53692,
      callbackPath: "/callback",
      authorizeUrl({ challenge, state, redirectUri }) {
        const url = new URL(authorizeUrl);
        url.search = new URLSearchParams({
          code: "true",
          client_id: CLIENT_ID,
          response_type: "code",
          redirect_uri: redirectUri,
          scope: SCOPES,
          code_challenge: challenge,
          code_challenge_method: "S256",
          state,
        }).toString();
        return url.toString();
      },
      async exchange({ code, verifier, state, redirectUri }) {
        const what = "Claude sign-in";
        const answer = await oauthFetch(what, tokenUrl, {
          json: {
            grant_type: "authorization_code",
            client_id: CLIENT_ID,
            code,
            state,
            redirect_uri: redirectUri,
            code_verifier: verifier,
          },
        });
        if (answer.status !== 200)
          throw new OAuthError(`${what}: the token endpoint refused the code (${oauthErrorText(answer)})`);
        return tokensOf(answer.json, what);
      },
    },
    async refresh(tokens) {
      const what = "Claude token refresh";
      const answer = await oauthFetch(what, tokenUrl, {
        json: { grant_type: "refresh_token", client_id: CLIENT_ID, refresh_token: tokens.refresh },
      });
      if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
        throw new OAuthError(`${what} was refused (${oauthErrorText(answer)})`, true, answer.status);
      }
      if (answer.status !== 200)
        throw new OAuthError(`${what} failed (${oauthErrorText(answer)})`, false, answer.status);
      return tokensOf(answer.json, what, tokens);
    },
    apiHeaders(tokens) {
      return {
        authorization: `Bearer ${tokens.access}`,
        "anthropic-beta": "oauth-2025-04-20,claude-code-20250219",
        "x-app": "cli",
      };
    },
  };
}
