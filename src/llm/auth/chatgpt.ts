// ChatGPT Plus/Pro through the Codex sign-in: the Codex CLI's public client, PKCE with its registered
// localhost:1455 redirect, or its device code (for a browser elsewhere). Requests go to the Codex backend's
// Responses API with the account id taken from the access token's claims.
import { asRecord, parseJson } from "../../config/records.js";
import { expiryFrom, OAuthError, oauthErrorText, oauthFetch, stringField } from "./oauth-http.js";
import {
  exchangeCode,
  pkceAuthorizeUrl,
  refreshTokenOf,
  refreshTokens,
  type TokenEndpoint,
} from "./pkce-flow.js";
import type { DevicePoll, DeviceStart, SubscriptionProvider, Tokens } from "./types.js";

const CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";
const ISSUER = "https://auth.openai.com";
const SCOPES = "openid profile email offline_access";
const AUTH_CLAIM = "https://api.openai.com/auth";

/** The claims of a JWT, or {} when it is not one (nothing is verified: the API does that). */
function jwtClaims(token: string | undefined): Record<string, unknown> {
  const payload = token?.split(".")[1];
  if (!payload) return {};
  return asRecord(parseJson(Buffer.from(payload, "base64url").toString("utf8"))) ?? {};
}

function accountIdOf(...tokens: (string | undefined)[]): string | undefined {
  for (const token of tokens) {
    const id = asRecord(jwtClaims(token)[AUTH_CLAIM])?.chatgpt_account_id;
    if (typeof id === "string" && id) return id;
  }
  return undefined;
}

/** `base` moves every endpoint (tests, proxies): the paths stay those of auth.openai.com. */
export function chatgptProvider(base = ISSUER): SubscriptionProvider {
  const endpoint: TokenEndpoint = {
    url: `${base}/oauth/token`,
    clientId: CLIENT_ID,
    body: "form",
    tokensOf: (json, what, previous) => {
      const access = stringField(json, "access_token", what);
      const idToken = typeof json.id_token === "string" ? json.id_token : undefined;
      const accountId = accountIdOf(access, idToken) ?? previous?.accountId;
      if (!accountId)
        throw new OAuthError(`${what}: the token names no ChatGPT account (is this a ChatGPT plan?)`);
      return { access, refresh: refreshTokenOf(json, previous), expires: expiryFrom(json), accountId };
    },
  };
  const exchange = (code: string, verifier: string, redirectUri: string): Promise<Tokens> =>
    exchangeCode(endpoint, "ChatGPT sign-in", { code, code_verifier: verifier, redirect_uri: redirectUri });
  return {
    id: "chatgpt",
    browser: {
      callbackPort: 1455,
      callbackPath: "/auth/callback",
      authorizeUrl: (params) =>
        pkceAuthorizeUrl(`${base}/oauth/authorize`, { clientId: CLIENT_ID, scope: SCOPES }, params, {
          id_token_add_organizations: "true",
          codex_cli_simplified_flow: "true",
          originator: "relm",
        }),
      exchange: ({ code, verifier, redirectUri }) => exchange(code, verifier, redirectUri),
    },
    device: {
      async start(): Promise<DeviceStart> {
        const what = "ChatGPT device sign-in";
        const answer = await oauthFetch(what, `${base}/api/accounts/deviceauth/usercode`, {
          json: { client_id: CLIENT_ID },
        });
        if (answer.status !== 200) throw new OAuthError(`${what}: ${oauthErrorText(answer)}`);
        const interval = Number(answer.json.interval);
        return {
          verificationUrl: `${base}/codex/device`,
          userCode: stringField(answer.json, "user_code", what),
          intervalMs: (Number.isFinite(interval) && interval > 0 ? interval : 5) * 1000,
          deadline: Date.now() + 15 * 60_000,
          handle: {
            device_auth_id: stringField(answer.json, "device_auth_id", what),
            user_code: stringField(answer.json, "user_code", what),
          },
        };
      },
      async poll(start): Promise<DevicePoll> {
        const what = "ChatGPT device sign-in";
        const answer = await oauthFetch(what, `${base}/api/accounts/deviceauth/token`, {
          json: start.handle,
        });
        // 403/404 mean "not yet" on this endpoint.
        if (answer.status === 403 || answer.status === 404) return { pending: true };
        if (answer.status !== 200) throw new OAuthError(`${what}: ${oauthErrorText(answer)}`);
        const code = stringField(answer.json, "authorization_code", what);
        const verifier = stringField(answer.json, "code_verifier", what);
        return { tokens: await exchange(code, verifier, `${base}/deviceauth/callback`) };
      },
    },
    refresh: (tokens) => refreshTokens(endpoint, "ChatGPT token refresh", tokens),
    apiHeaders(tokens) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${tokens.access}`,
        "openai-beta": "responses=experimental",
        originator: "relm",
      };
      if (tokens.accountId) headers["chatgpt-account-id"] = tokens.accountId;
      return headers;
    },
  };
}
