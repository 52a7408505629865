// Subscription sign-in in process, against a local authorization server over real HTTP: PKCE S256 and state,
// the saved file's mode, refresh before expiry, one refresh shared by concurrent clients, device flows.
import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  challengeOf,
  readAuthFile,
  SubscriptionAuth,
  signIn,
  storeTokens,
} from "../../src/llm/auth/index.js";
import { Redactor } from "../../src/session/redact.js";
import { ROOT, tempDir } from "../support/cli.js";
import { actAsBrowser, type OAuthServer, startOAuthServer } from "../support/oauth-server.js";
import { until } from "../support/wait.js";

const env: NodeJS.ProcessEnv = { RELM_OAUTH_OPEN: "none", RELM_OAUTH_CALLBACK_PORT: "0" };
let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function setup(options = {}): Promise<{ server: OAuthServer; home: string }> {
  const server = await startOAuthServer(options);
  const home = tempDir("relm-auth-");
  cleanup.push(() => server.close(), home.cleanup);
  return { server, home: join(home.path, "state") };
}

describe("PKCE", () => {
  it("derives the S256 challenge of RFC 7636's example", () => {
    expect(challengeOf("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });
});

describe("browser sign-in", () => {
  for (const id of ["claude", "chatgpt"] as const) {
    it(`${id}: PKCE and state checked, tokens saved 0600 in a 0700 directory`, async () => {
      const { server, home } = await setup();
      let shown = "";
      const done = signIn(id, {
        home,
        env,
        oauthBase: server.url,
        ui: { showUrl: (url) => (shown = url), showDeviceCode: () => {} },
      });
      await until(() => shown || undefined);
      const url = new URL(shown);
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // A callback with another state is refused, and the sign-in goes on waiting for its own.
      expect(await actAsBrowser(shown, "forged-state")).toBe(400);
      expect(await actAsBrowser(shown)).toBe(200);
      const tokens = await done;
      // The server accepted the verifier only because its S256 matched the challenge.
      const exchange = server.requests.find((r) => r.body.grant_type === "authorization_code");
      expect(challengeOf(String(exchange?.body.code_verifier))).toBe(url.searchParams.get("code_challenge"));
      expect(tokens.access).toBe(server.issued[0]);
      if (id === "chatgpt") expect(tokens.accountId).toBe("acct-test-123");
      expect(statSync(join(home, "auth.json")).mode & 0o777).toBe(0o600);
      expect(statSync(home).mode & 0o777).toBe(0o700);
      expect(readAuthFile(home).subscriptions[id]?.refresh).toBe(tokens.refresh);
    });
  }

  it("takes a pasted redirect URL, and refuses one from another sign-in", async () => {
    const { server, home } = await setup();
    let shown = "";
    let paste: (text: string) => void = () => {};
    const pasted = () => new Promise<string>((resolve) => (paste = resolve));
    const ui = { showUrl: (url: string) => (shown = url), showDeviceCode: () => {}, pasted };
    // The browser on another machine: its redirect never reaches this one; the person pastes it.
    const redirectOf = async () => {
      const answer = await fetch(shown, { redirect: "manual" });
      return answer.headers.get("location") as string;
    };
    const wrong = signIn("claude", { home, env, oauthBase: server.url, ui });
    await until(() => shown || undefined);
    const foreign = new URL(await redirectOf());
    foreign.searchParams.set("state", "someone-elses");
    paste(foreign.toString());
    await expect(wrong).rejects.toThrow(/state does not match/);

    shown = "";
    const right = signIn("claude", { home, env, oauthBase: server.url, ui });
    await until(() => shown || undefined);
    const location = new URL(await redirectOf());
    // Claude's page shows `code#state`.
    paste(`${location.searchParams.get("code")}#${location.searchParams.get("state")}`);
    expect((await right).access).toBe(server.issued[0]);
  });
});

describe("device sign-in", () => {
  it("copilot: GitHub's device code, then a Copilot token bought with the GitHub token", async () => {
    const { server, home } = await setup({ devicePending: 2 });
    let code = "";
    const tokens = await signIn("copilot", {
      home,
      env,
      oauthBase: server.url,
      ui: { showUrl: () => {}, showDeviceCode: (_url, c) => (code = c) },
    });
    expect(code).toBe("WXYZ-9876");
    expect(tokens.refresh).toMatch(/^gho_/);
    expect(tokens.access).toBe(server.issued[0]);
    const polls = server.requests.filter((r) => r.path === "/login/oauth/access_token");
    expect(polls).toHaveLength(3);
    expect(polls[0]?.body.grant_type).toBe("urn:ietf:params:oauth:grant-type:device_code");
  });

  it("a device code never approved before it expires says so and saves nothing", async () => {
    const { server, home } = await setup({ devicePending: 1_000_000, deviceExpiresIn: 0.3 });
    const ui = { showUrl: () => {}, showDeviceCode: () => {} };
    await expect(signIn("copilot", { home, env, oauthBase: server.url, ui })).rejects.toThrow(
      "the device code expired before the sign-in was approved; run `relm login` again",
    );
    expect(readAuthFile(home).subscriptions).toEqual({});
  });

  it("chatgpt: the Codex device code, then the code exchanged with the verifier the server gave", async () => {
    const { server, home } = await setup({ devicePending: 1 });
    const tokens = await signIn("chatgpt", {
      home,
      env,
      oauthBase: server.url,
      method: "device",
      ui: { showUrl: () => {}, showDeviceCode: () => {} },
    });
    expect(tokens.accountId).toBe("acct-test-123");
    const exchange = server.requests.find((r) => r.body.grant_type === "authorization_code");
    expect(exchange?.body.redirect_uri).toBe(`${server.url}/deviceauth/callback`);
  });
});

describe("refresh", () => {
  async function signedIn(server: OAuthServer, home: string) {
    let shown = "";
    const done = signIn("claude", {
      home,
      env,
      oauthBase: server.url,
      ui: { showUrl: (url) => (shown = url), showDeviceCode: () => {} },
    });
    await until(() => shown || undefined);
    await actAsBrowser(shown);
    return done;
  }

  it("refreshes a token that is about to expire before sending it", async () => {
    const { server, home } = await setup();
    const first = await signedIn(server, home);
    const auth = new SubscriptionAuth(home, "claude", server.url);
    expect((await auth.headers()).authorization).toBe(`Bearer ${first.access}`);
    expect(server.refreshes()).toBe(0);
    await storeTokens(home, "claude", { ...first, expires: Date.now() + 60_000 });
    const fresh = new SubscriptionAuth(home, "claude", server.url);
    const headers = await fresh.headers();
    expect(server.refreshes()).toBe(1);
    expect(headers.authorization).toBe(`Bearer ${server.issued[1]}`);
    expect(headers["anthropic-beta"]).toContain("oauth-2025-04-20");
    expect(readAuthFile(home).subscriptions.claude?.access).toBe(server.issued[1]);
  });

  it("several clients refreshing at once spend the single-use refresh token once and share the result", async () => {
    const { server, home } = await setup();
    const first = await signedIn(server, home);
    await storeTokens(home, "claude", { ...first, expires: Date.now() - 1000 });
    // Separate instances, as separate session hosts would have: only the file lock orders them.
    const clients = Array.from({ length: 4 }, () => new SubscriptionAuth(home, "claude", server.url));
    const all = await Promise.all(clients.map((c) => c.headers()));
    expect(server.refreshes()).toBe(1);
    expect(new Set(all.map((h) => h.authorization))).toEqual(new Set([`Bearer ${server.issued[1]}`]));
    const saved = JSON.parse(readFileSync(join(home, "auth.json"), "utf8"));
    expect(saved.subscriptions.claude.access).toBe(server.issued[1]);
  });

  it("separate processes refreshing at once (several session hosts) spend one refresh and agree", async () => {
    const { server, home } = await setup();
    const first = await signedIn(server, home);
    await storeTokens(home, "claude", { ...first, expires: Date.now() - 1000 });
    const module = pathToFileURL(join(ROOT, "dist/llm/auth/index.js")).href;
    const script = [
      `const { SubscriptionAuth } = await import(${JSON.stringify(module)});`,
      `const auth = new SubscriptionAuth(${JSON.stringify(home)}, "claude", ${JSON.stringify(server.url)});`,
      "process.stdout.write((await auth.headers()).authorization);",
    ].join("\n");
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (err += d));
        child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
      });
    const answers = await Promise.all([run(), run(), run()]);
    expect(server.refreshes()).toBe(1);
    expect(new Set(answers)).toEqual(new Set([`Bearer ${server.issued[1]}`]));
    expect(readAuthFile(home).subscriptions.claude?.access).toBe(server.issued[1]);
  });

  it("after a 401 refreshes once; a refused refresh says to run relm login", async () => {
    const { server, home } = await setup();
    await signedIn(server, home);
    const auth = new SubscriptionAuth(home, "claude", server.url);
    const renewed = await auth.headers({ refresh: true });
    expect(renewed.authorization).toBe(`Bearer ${server.issued[1]}`);
    server.revokeRefresh();
    await expect(auth.headers({ refresh: true })).rejects.toThrow(
      /expired or was revoked.*relm login claude/,
    );
  });

  it("tokens from a refresh join a running session's redaction list", async () => {
    const { server, home } = await setup();
    const first = await signedIn(server, home);
    await storeTokens(home, "claude", { ...first, expires: Date.now() - 1000 });
    const secrets = [first.access, first.refresh];
    const redactor = new Redactor(secrets);
    const auth = new SubscriptionAuth(home, "claude", server.url);
    auth.onTokens((t) => secrets.push(t.access, t.refresh));
    await auth.headers();
    const fresh = server.issued[1] as string;
    expect(secrets).toContain(fresh);
    expect(redactor.text(`token ${fresh}`)).toBe("token [REDACTED]");
  });

  const device = { showUrl: () => {}, showDeviceCode: () => {} };

  it("chatgpt: a form grant to OpenAI's endpoint; the account id and the rotated refresh token are saved", async () => {
    const { server, home } = await setup();
    const first = await signIn("chatgpt", { home, env, oauthBase: server.url, method: "device", ui: device });
    await storeTokens(home, "chatgpt", { ...first, expires: Date.now() + 60_000 });
    const auth = new SubscriptionAuth(home, "chatgpt", server.url);
    const headers = await auth.headers();
    expect(server.refreshes()).toBe(1);
    const grant = server.requests.find((r) => r.body.grant_type === "refresh_token");
    expect(grant?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(grant?.body).toMatchObject({
      client_id: "app_EMoamEEZ73f0CkXaXp7hrann",
      refresh_token: first.refresh,
    });
    expect(headers.authorization).toBe(`Bearer ${server.issued[1]}`);
    expect(headers["chatgpt-account-id"]).toBe("acct-test-123");
    const saved = readAuthFile(home).subscriptions.chatgpt;
    expect(saved).toMatchObject({ access: server.issued[1], accountId: "acct-test-123" });
    expect(saved?.refresh).not.toBe(first.refresh);
    server.revokeRefresh();
    await expect(auth.headers({ refresh: true })).rejects.toThrow(
      /ChatGPT Plus\/Pro \(Codex\) sign-in has expired or was revoked.*relm login chatgpt/,
    );
  });

  it("copilot: a new Copilot token bought with the GitHub token, which stays; a revoked one says relm login copilot", async () => {
    const { server, home } = await setup();
    const first = await signIn("copilot", { home, env, oauthBase: server.url, ui: device });
    expect(server.refreshes()).toBe(1); // the sign-in bought the first Copilot token
    await storeTokens(home, "copilot", { ...first, expires: Date.now() + 60_000 });
    const auth = new SubscriptionAuth(home, "copilot", server.url);
    const headers = await auth.headers({ refresh: false, lastRole: "tool" });
    expect(server.refreshes()).toBe(2);
    const bought = server.requests.filter((r) => r.path === "/copilot_internal/v2/token").at(-1);
    expect(bought?.headers.authorization).toBe(`token ${first.refresh}`);
    expect(headers.authorization).toBe(`Bearer ${server.issued[1]}`);
    expect(headers["x-initiator"]).toBe("agent");
    const saved = readAuthFile(home).subscriptions.copilot;
    expect(saved).toMatchObject({ access: server.issued[1], refresh: first.refresh });
    expect(saved?.expires).toBeGreaterThan(Date.now() + 30 * 60_000);
    server.revokeRefresh();
    await expect(auth.headers({ refresh: true })).rejects.toThrow(
      /GitHub Copilot sign-in has expired or was revoked \(Copilot token: the GitHub sign-in was revoked.*relm login copilot/,
    );
  });

  it("says to sign in when there are no tokens", async () => {
    const { server, home } = await setup();
    const auth = new SubscriptionAuth(home, "chatgpt", server.url);
    await expect(auth.headers()).rejects.toThrow(
      "not signed in to ChatGPT Plus/Pro (Codex); run `relm login chatgpt`",
    );
  });
});
