// GitHub Copilot: GitHub's device flow with the Copilot editor plugins' public client id gives a GitHub
// token (no expiry); that token buys short-lived Copilot API tokens, which is what "refresh" means here.
import { OAuthError, oauthErrorText, oauthFetch, stringField } from "./oauth-http.js";
import type { DevicePoll, DeviceStart, SubscriptionProvider, Tokens } from "./types.js";

const CLIENT_ID = "Iv1.b507a08c87ecfe98";
// Copilot's API serves known editors; these name the VS Code chat extension, as other agents do.
const EDITOR_HEADERS = {
  "user-agent": "GitHubCopilotChat/0.35.0",
  "editor-version": "vscode/1.107.0",
  "editor-plugin-version": "copilot-chat/0.35.0",
  "copilot-integration-id": "vscode-chat",
};

/** `base` moves every endpoint (tests, proxies): {base}/login/..., {base}/copilot_internal/v2/token. */
export function copilotProvider(base?: string): SubscriptionProvider {
  const github = base ?? "https://github.com";
  const copilotTokenUrl = base
    ? `${base}/copilot_internal/v2/token`
    : "https://api.github.com/copilot_internal/v2/token";
  const copilotToken = async (githubToken: string): Promise<Tokens> => {
    const what = "Copilot token";
    const answer = await oauthFetch(what, copilotTokenUrl, {
      headers: { authorization: `token ${githubToken}`, ...EDITOR_HEADERS },
    });
    if (answer.status === 401 || answer.status === 403 || answer.status === 404) {
      const why =
        answer.status === 401 ? "the GitHub sign-in was revoked" : "this GitHub account has no Copilot plan";
      throw new OAuthError(`${what}: ${why} (${oauthErrorText(answer)})`, true);
    }
    if (answer.status !== 200) throw new OAuthError(`${what}: ${oauthErrorText(answer)}`, false);
    const expiresAt = Number(answer.json.expires_at);
    return {
      access: stringField(answer.json, "token", what),
      refresh: githubToken,
      expires: Number.isFinite(expiresAt) && expiresAt > 0 ? expiresAt * 1000 : Date.now() + 25 * 60_000,
    };
  };
  return {
    id: "copilot",
    device: {
      async start(): Promise<DeviceStart> {
        const what = "GitHub device sign-in";
        const answer = await oauthFetch(what, `${github}/login/device/code`, {
          headers: { "user-agent": EDITOR_HEADERS["user-agent"] },
          form: { client_id: CLIENT_ID, scope: "read:user" },
        });
        if (answer.status !== 200) throw new OAuthError(`${what}: ${oauthErrorText(answer)}`);
        const interval = Number(answer.json.interval);
        const expiresIn = Number(answer.json.expires_in);
        return {
          verificationUrl: stringField(answer.json, "verification_uri", what),
          userCode: stringField(answer.json, "user_code", what),
          intervalMs: (Number.isFinite(interval) && interval > 0 ? interval : 5) * 1000,
          deadline: Date.now() + (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 900) * 1000,
          handle: { device_code: stringField(answer.json, "device_code", what) },
        };
      },
      async poll(start): Promise<DevicePoll> {
        const what = "GitHub device sign-in";
        const answer = await oauthFetch(what, `${github}/login/oauth/access_token`, {
          headers: { "user-agent": EDITOR_HEADERS["user-agent"] },
          form: {
            client_id: CLIENT_ID,
            device_code: start.handle.device_code as string,
            grant_type: "urn:ietf:params:oauth:grant-type:device_code",
          },
        });
        const error = answer.json.error;
        if (error === "authorization_pending") return { pending: true };
        if (error === "slow_down") return { pending: true, slowDown: true };
        if (answer.status !== 200 || typeof error === "string")
          throw new OAuthError(`${what}: ${oauthErrorText(answer)}`);
        return { tokens: await copilotToken(stringField(answer.json, "access_token", what)) };
      },
    },
    refresh: (tokens) => copilotToken(tokens.refresh),
    apiHeaders(tokens, context) {
      return {
        authorization: `Bearer ${tokens.access}`,
        ...EDITOR_HEADERS,
        "openai-intent": "conversation-edits",
        // A person's own message is the premium request; the agent's follow-ups after tool results are not.
        "x-initiator": context.lastRole === "user" || context.lastRole === undefined ? "user" : "agent",
      };
    },
  };
}
