// Claude Pro/Max: the authorization-code flow with PKCE that Claude Code's own client uses (its public
// client id and its registered localhost redirect), then Bearer tokens with the OAuth beta header.
import { expiryFrom, stringField } from "./oauth-http.js";
import {
  exchangeCode,
  pkceAuthorizeUrl,
  refreshTokenOf,
  refreshTokens,
  type TokenEndpoint,
} from "./pkce-flow.js";
import type { SubscriptionProvider } from "./types.js";

const CLIENT_ID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";
const SCOPES = "org:create_api_key user:profile user:inference";
const AUTHORIZE = "https://claude.ai/oauth/authorize";
const TOKEN = "https://platform.claude.com/v1/oauth/token";
const CLAUDE_PREAMBLE = "You are Claude Code, Anthropic's official CLI for Claude.";

/** `base` moves both endpoints (tests, proxies): {base}/oauth/authorize and {base}/v1/oauth/token. */
export function claudeProvider(base?: string): SubscriptionProvider {
  const authorizeUrl = base ? `${base}/oauth/authorize` : AUTHORIZE;
  const endpoint: TokenEndpoint = {
    url: base ? `${base}/v1/oauth/token` : TOKEN,
    clientId: CLIENT_ID,
    body: "json",
    tokensOf: (json, what, previous) => ({
      access: stringField(json, "access_token", what),
      refresh: refreshTokenOf(json, previous),
      expires: expiryFrom(json),
    }),
  };
  return {
    id: "claude",
    systemPreamble: CLAUDE_PREAMBLE,
    browser: {
      callbackPort: 53692,
      callbackPath: "/callback",
      authorizeUrl: (params) =>
        // code=true as Claude Code's own client sends it.
        pkceAuthorizeUrl(authorizeUrl, { clientId: CLIENT_ID, scope: SCOPES }, params, { code: "true" }),
      exchange: ({ code, verifier, state, redirectUri }) =>
        // Claude Code's client sends the state to the token endpoint too.
        exchangeCode(endpoint, "Claude sign-in", {
          code,
          state,
          redirect_uri: redirectUri,
          code_verifier: verifier,
        }),
    },
    refresh: (tokens) => refreshTokens(endpoint, "Claude token refresh", tokens),
    apiHeaders(tokens) {
      return {
        authorization: `Bearer ${tokens.access}`,
        "anthropic-beta": "oauth-2025-04-20,claude-code-20250219",
        "x-app": "cli",
      };
    },
  };
}
