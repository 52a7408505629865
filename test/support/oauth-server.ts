// A local OAuth authorization server for the subscription sign-in tests, over real HTTP on 127.0.0.1:
// the authorize endpoint (which redirects to the client's callback, as a browser would be), token
// endpoints that check PKCE S256 and the redirect URI, single-use rotating refresh tokens, and the device
// flows (ChatGPT's and GitHub's) with Copilot's token exchange. Every request is recorded.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  raw: string;
}

export interface OAuthServerOptions {
  /** expires_in of every access token, in seconds (default 3600). */
  expiresIn?: number;
  /** Device polls answered "pending" before the approval (default 1). */
  devicePending?: number;
  /** expires_in of GitHub's device code, in seconds (default 900). */
  deviceExpiresIn?: number;
}

export interface OAuthServer {
  url: string;
  requests: RecordedRequest[];
  /** Access tokens issued so far, in order. */
  issued: string[];
  /** The access token the next grant will issue. */
  nextAccess(): string;
  /** Refresh grants answered so far (successful or not). */
  refreshes(): number;
  /** Every refresh from now on is refused with invalid_grant. */
  revokeRefresh(): void;
  /** Every value the server ever issued (access, refresh, GitHub tokens): what must never leak. */
  secrets(): string[];
  close(): Promise<void>;
}

const ACCOUNT = "acct-test-123";

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

export async function startOAuthServer(options: OAuthServerOptions = {}): Promise<OAuthServer> {
  const expiresIn = options.expiresIn ?? 3600;
  const requests: RecordedRequest[] = [];
  const issued: string[] = [];
  const secrets = new Set<string>();
  const codes = new Map<string, { challenge: string; redirectUri: string; clientId: string }>();
  const liveRefresh = new Set<string>();
  let serial = 0;
  let refreshCount = 0;
  let revoked = false;
  let devicePolls = 0;
  let url = "";

  // ChatGPT's access token is a JWT whose claims name the account; the others are opaque.
  const accessFor = (n: number) =>
    `${b64({ alg: "none" })}.${b64({ "https://api.openai.com/auth": { chatgpt_account_id: ACCOUNT }, n })}.sig-access-${n}`;
  const grant = () => {
    serial++;
    const access = accessFor(serial);
    const refresh = `rt-${serial}-${Math.random().toString(36).slice(2)}`;
    issued.push(access);
    secrets.add(access);
    secrets.add(refresh);
    liveRefresh.add(refresh);
    return { access_token: access, refresh_token: refresh, expires_in: expiresIn, token_type: "Bearer" };
  };
  const newCode = (challenge: string, redirectUri: string, clientId: string) => {
    const code = `code-${Math.random().toString(36).slice(2)}`;
    codes.set(code, { challenge, redirectUri, clientId });
    return code;
  };

  const json = (res: ServerResponse, status: number, value: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const u = new URL(req.url ?? "/", url);
    let body: Record<string, unknown> = {};
    if ((req.headers["content-type"] ?? "").includes("application/json")) body = raw ? JSON.parse(raw) : {};
    else if (raw) body = Object.fromEntries(new URLSearchParams(raw));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      headers[k] = Array.isArray(v) ? v.join(", ") : (v ?? "");
    requests.push({ method: req.method ?? "", path: u.pathname, headers, body, raw });
    const path = u.pathname;

    if (req.method === "GET" && path === "/oauth/authorize") {
      const q = u.searchParams;
      const missing = ["client_id", "redirect_uri", "code_challenge", "state"].filter((k) => !q.get(k));
      if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || missing.length) {
        return json(res, 400, { error: "invalid_request", error_description: `bad authorize ${missing}` });
      }
      const code = newCode(
        q.get("code_challenge") as string,
        q.get("redirect_uri") as string,
        q.get("client_id") as string,
      );
      const to = new URL(q.get("redirect_uri") as string);
      to.searchParams.set("code", code);
      to.searchParams.set("state", q.get("state") as string);
      res.writeHead(302, { location: to.toString() });
      return res.end();
    }
    if (req.method === "POST" && (path === "/oauth/token" || path === "/v1/oauth/token")) {
      if (body.grant_type === "authorization_code") {
        const entry = codes.get(String(body.code));
        if (!entry) return json(res, 400, { error: "invalid_grant", error_description: "unknown code" });
        codes.delete(String(body.code));
        const challenge = createHash("sha256")
          .update(String(body.code_verifier ?? ""))
          .digest("base64url");
        if (challenge !== entry.challenge) {
          return json(res, 400, { error: "invalid_grant", error_description: "PKCE verification failed" });
        }
        if (body.redirect_uri !== entry.redirectUri || body.client_id !== entry.clientId) {
          return json(res, 400, {
            error: "invalid_grant",
            error_description: "redirect_uri or client_id mismatch",
          });
        }
        return json(res, 200, grant());
      }
      if (body.grant_type === "refresh_token") {
        refreshCount++;
        const token = String(body.refresh_token);
        if (revoked || !liveRefresh.has(token)) {
          return json(res, 400, {
            error: "invalid_grant",
            error_description: "refresh token is invalid or used",
          });
        }
        // Single use, as the providers' are: a second refresh with it fails.
        liveRefresh.delete(token);
        return json(res, 200, grant());
      }
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    if (req.method === "POST" && path === "/api/accounts/deviceauth/usercode") {
      return json(res, 200, { device_auth_id: "dev-auth-1", user_code: "ABCD-1234", interval: "0.05" });
    }
    if (req.method === "POST" && path === "/api/accounts/deviceauth/token") {
      if (devicePolls++ < (options.devicePending ?? 1))
        return json(res, 403, { error: "authorization_pending" });
      const verifier = `device-verifier-${Math.random().toString(36).slice(2)}`;
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      const code = newCode(challenge, `${url}/deviceauth/callback`, "app_EMoamEEZ73f0CkXaXp7hrann");
      return json(res, 200, { authorization_code: code, code_challenge: challenge, code_verifier: verifier });
    }
    if (req.method === "POST" && path === "/login/device/code") {
      return json(res, 200, {
        device_code: "gh-device-1",
        user_code: "WXYZ-9876",
        verification_uri: `${url}/login/device`,
        interval: 0.05,
        expires_in: options.deviceExpiresIn ?? 900,
      });
    }
    if (req.method === "POST" && path === "/login/oauth/access_token") {
      if (devicePolls++ < (options.devicePending ?? 1))
        return json(res, 200, { error: "authorization_pending" });
      const token = `gho_${Math.random().toString(36).slice(2)}`;
      secrets.add(token);
      return json(res, 200, { access_token: token, token_type: "bearer", scope: "read:user" });
    }
    if (req.method === "GET" && path === "/copilot_internal/v2/token") {
      const auth = headers.authorization ?? "";
      if (!auth.startsWith("token gho_") || !secrets.has(auth.slice(6)) || revoked) {
        return json(res, 401, { message: "Bad credentials" });
      }
      refreshCount++;
      serial++;
      const token = `tid=copilot;exp=${serial};sig-copilot-${serial}`;
      issued.push(token);
      secrets.add(token);
      return json(res, 200, {
        token,
        expires_at: Math.floor(Date.now() / 1000) + expiresIn,
        refresh_in: 1500,
      });
    }
    return json(res, 404, { error: "not_found", path });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        handle(req, res, Buffer.concat(chunks).toString("utf8"));
      } catch (error) {
        json(res, 500, { error: String(error) });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    url,
    requests,
    issued,
    nextAccess: () => accessFor(serial + 1),
    refreshes: () => refreshCount,
    revokeRefresh: () => {
      revoked = true;
    },
    secrets: () => [...secrets],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The browser's part: fetch the authorize URL relm printed and follow its redirect to relm's callback
 * (localhost there is relm's 127.0.0.1 listener). Returns the callback's status.
 */
export async function actAsBrowser(authorizeUrl: string, tamperState?: string): Promise<number> {
  const first = await fetch(authorizeUrl, { redirect: "manual" });
  const location = first.headers.get("location");
  if (first.status !== 302 || !location)
    throw new Error(`authorize answered ${first.status}: ${await first.text()}`);
  const callback = new URL(location);
  callback.hostname = "127.0.0.1";
  if (tamperState !== undefined) callback.searchParams.set("state", tamperState);
  const answer = await fetch(callback);
  await answer.text();
  return answer.status;
}
