// Subscription sign-in end to end: `relm login claude` against a local authorization server (the test acts as
// the browser, following the URL relm prints to relm's callback), then runs on the scripted model that
// accept only the signed-in token: headers, refresh after a 401 (once), a clear failure, logout; and the
// tokens found nowhere relm writes, nor in the kernel's environment. Then the other ways through `relm
// login`: a device code, a pasted code when the callback's port is taken, and Ctrl-C while it waits.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ScriptedModel, startScriptedModel } from "../../../src/scripted/index.js";
import { cleanEnv, RELM_BIN, runRelm, tempDir } from "../../support/cli.js";
import { actAsBrowser, type OAuthServer, startOAuthServer } from "../../support/oauth-server.js";
import { until } from "../../support/wait.js";

const MODEL = "claude-sonnet-4-5";
let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

interface Setup {
  server: OAuthServer;
  home: string;
  cwd: string;
  env: (model?: ScriptedModel) => NodeJS.ProcessEnv;
}

async function setup(): Promise<Setup> {
  const server = await startOAuthServer();
  const home = tempDir("relm-sub-home-");
  const cwd = tempDir("relm-sub-cwd-");
  cleanup.push(() => server.close(), home.cleanup, cwd.cleanup);
  const env = (model?: ScriptedModel) =>
    cleanEnv({
      RELM_HOME: home.path,
      RELM_CLAUDE_OAUTH_URL: server.url,
      RELM_OAUTH_CALLBACK_PORT: "0",
      RELM_OAUTH_OPEN: "none",
      ...(model ? { RELM_BASE_URL: model.anthropicBaseUrl } : {}),
    });
  return { server, home: home.path, cwd: cwd.path, env };
}

/** A `relm login ...` process, its output as it comes, and its exit code once it has one. */
function startLogin(s: Setup, args: string[], extra: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [RELM_BIN, "login", ...args], {
    env: { ...s.env(), ...extra },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out = { stdout: "", stderr: "", code: undefined as number | null | undefined };
  child.stdout.setEncoding("utf8").on("data", (d) => (out.stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (c) => {
      out.code = c;
      resolve(c);
    }),
  );
  cleanup.push(() => void child.kill());
  /** Waits for `pattern` on stderr; fails at once if relm exits first. */
  const said = (pattern: RegExp) =>
    until(() => {
      if (out.code !== undefined) throw new Error(`relm login exited (${out.code}): ${out.stderr}`);
      return out.stderr.match(pattern)?.[0];
    }, 60_000);
  return { child, out, exited, said };
}

const AUTHORIZE_URL = /https?:\/\/\S+\/oauth\/authorize\?\S+/;

/** `relm login claude`, with the test as the browser: it fetches the printed URL and follows the redirect. */
async function login(s: Setup): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startLogin(s, ["claude", "--model", MODEL]);
  expect(await actAsBrowser(await run.said(AUTHORIZE_URL))).toBe(200);
  const code = await run.exited;
  return { code, stdout: run.out.stdout, stderr: run.out.stderr };
}

/** Every file relm wrote under its home except the token file itself. */
function writtenFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...writtenFiles(path));
    else if (!entry.name.startsWith("auth.json") && !entry.isSocket()) out.push(path);
  }
  return out;
}

function expectNoSecrets(s: Setup, texts: string[], hosted = false): void {
  const files = writtenFiles(s.home);
  expect(files.some((f) => f.endsWith("journal.jsonl"))).toBe(true);
  if (hosted) expect(files.some((f) => f.endsWith("host.log"))).toBe(true);
  const all = [...texts, ...files.map((f) => readFileSync(f, "utf8"))].join("\n");
  for (const secret of s.server.secrets()) expect(all).not.toContain(secret);
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("subscription sign-in, end to end", () => {
  it("signs in, sends the token only to the model API, keeps it out of the kernel and every file; logs out", async () => {
    const s = await setup();
    const signed = await login(s);
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toContain("signed in to Claude Pro/Max");
    const authFile = join(s.home, "auth.json");
    expect(statSync(authFile).mode & 0o777).toBe(0o600);
    expect(statSync(s.home).mode & 0o777).toBe(0o700);
    const config = JSON.parse(readFileSync(join(s.home, "config.json"), "utf8"));
    expect(config).toMatchObject({ subscription: "claude", model: MODEL });
    expect(JSON.stringify(config)).not.toContain(s.server.issued[0]);

    const token = s.server.issued[0] as string;
    // doctor checks the sign-in rather than probing the API without it.
    const doctor = await runRelm(["doctor"], { env: s.env() });
    expect(doctor.stdout).toMatch(/subscription.*Claude Pro\/Max: signed in .*good for \d+ more min/);
    expect(doctor.stdout).not.toContain(token);
    // The kernel prints digests of its environment's values, and tries to read the token file.
    const model = await startScriptedModel({
      requireApiKey: token,
      script: [
        {
          code: [
            "import os, hashlib",
            "print('ENV', sorted(hashlib.sha256(v.encode()).hexdigest() for v in os.environ.values()))",
            `print(open(${JSON.stringify(authFile)}).read())`,
          ].join("\n"),
        },
        { text: "done" },
      ],
    });
    cleanup.push(() => model.close());
    const run = await runRelm(["run", "--max-cost", "5", "look around"], { env: s.env(model), cwd: s.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("API list prices");
    const first = model.requests[0];
    expect(first?.headers.authorization).toBe(`Bearer ${token}`);
    expect(first?.headers["anthropic-beta"]).toContain("oauth-2025-04-20");
    expect(first?.headers["x-api-key"]).toBeUndefined();
    const system = (first?.body as { system: { text: string }[] } | undefined)?.system ?? [];
    expect(system[0]?.text).toBe("You are Claude Code, Anthropic's official CLI for Claude.");
    // The cell ran, and no environment value of the kernel is a token.
    const printed = model.requests[1]?.rawBody ?? "";
    expect(printed).toContain("ENV");
    for (const secret of s.server.secrets()) expect(printed).not.toContain(sha(secret));
    // The token file's content reached the journal and the model only redacted.
    expect(printed).toContain("subscriptions");
    expectNoSecrets(s, [run.stdout, run.stderr, ...model.requests.slice(1).map((r) => r.rawBody)]);
    // Nothing but the model API and the token endpoint ever saw a token.
    expect(
      s.server.requests.filter((r) => r.raw.includes(token) || JSON.stringify(r.headers).includes(token)),
    ).toEqual([]);

    const out = await runRelm(["logout", "claude"], { env: s.env() });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("signed out of Claude Pro/Max");
    expect(readFileSync(authFile, "utf8")).not.toContain(token);
    expect(JSON.parse(readFileSync(join(s.home, "config.json"), "utf8")).subscription).toBeUndefined();
  });

  it("after a 401 refreshes once and carries on; when the fresh token is refused too it says to log in", async () => {
    const s = await setup();
    expect((await login(s)).code).toBe(0);
    // The model API accepts only the token the next refresh will issue.
    const next = s.server.nextAccess();
    // After the refresh, the kernel reads the token file: the new tokens are redacted too.
    const authFile = join(s.home, "auth.json");
    const model = await startScriptedModel({
      requireApiKey: next,
      script: [{ code: `print(open(${JSON.stringify(authFile)}).read())` }, { text: "fine" }],
    });
    cleanup.push(() => model.close());
    // Detached, so a session host (and its host.log) does the requests.
    const started = await runRelm(["run", "--detach", "hello"], { env: s.env(model), cwd: s.cwd });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    const run = await runRelm(["logs", id, "--follow"], { env: s.env(model) });
    await runRelm(["shutdown"], { env: s.env(model) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("fine");
    expect(s.server.refreshes()).toBe(1);
    const saved = JSON.parse(readFileSync(join(s.home, "auth.json"), "utf8"));
    expect(saved.subscriptions.claude.access).toBe(next);

    // Now nothing the server issues is accepted: one refresh, then a clear error (exit 1).
    const refusing = await startScriptedModel({ requireApiKey: "never-issued", script: [{ text: "no" }] });
    cleanup.push(() => refusing.close());
    const failed = await runRelm(["run", "hello"], { env: s.env(refusing), cwd: s.cwd });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /refused the sign-in even after a token refresh \(HTTP 401\).*run `relm login`/,
    );
    expect(s.server.refreshes()).toBe(2);
    expect(refusing.requests).toHaveLength(2);
    expectNoSecrets(s, [run.stdout, run.stderr, failed.stdout, failed.stderr], true);
  });
});

describe("relm login's other ways in", () => {
  const saved = (s: Setup) => JSON.parse(readFileSync(join(s.home, "auth.json"), "utf8")).subscriptions;
  const config = (s: Setup) => JSON.parse(readFileSync(join(s.home, "config.json"), "utf8"));

  it("copilot: prints the device code, waits for its approval, saves the subscription", async () => {
    const s = await setup();
    const run = startLogin(s, ["copilot"], { RELM_COPILOT_OAUTH_URL: s.server.url });
    expect(await run.said(/enter the code +\S+/)).toBe("enter the code  WXYZ-9876");
    expect(run.out.stderr).toContain(`Sign in to GitHub Copilot: open\n\n  ${s.server.url}/login/device\n`);
    expect(await run.exited, run.out.stderr).toBe(0);
    expect(run.out.stdout).toContain("signed in to GitHub Copilot");
    expect(saved(s).copilot).toMatchObject({
      access: s.server.issued[0],
      refresh: expect.stringMatching(/^gho_/),
    });
    expect(config(s)).toMatchObject({ subscription: "copilot", model: "gpt-4.1" });
  });

  it("claude with the callback's port taken says so, and takes the code#state pasted from a browser elsewhere", async () => {
    const s = await setup();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    cleanup.push(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as AddressInfo).port;
    const run = startLogin(s, ["claude"], { RELM_OAUTH_CALLBACK_PORT: String(port) });
    const url = await run.said(AUTHORIZE_URL);
    expect(run.out.stderr).toContain(
      `relm: port ${port} is in use, so paste the address the browser ends on`,
    );
    expect(run.out.stderr).toContain("paste the\naddress it ends on (or the code it shows) here");
    // The browser on the other machine ends on relm's redirect address, which nothing here answers.
    const location = (await fetch(url, { redirect: "manual" })).headers.get("location") as string;
    const redirect = new URL(location);
    expect(redirect.port).toBe(String(port));
    const { searchParams: q } = redirect;
    run.child.stdin.write(`\n${q.get("code")}#${q.get("state")}\n`); // a blank line first: skipped
    expect(await run.exited, run.out.stderr).toBe(0);
    expect(run.out.stdout).toContain("signed in to Claude Pro/Max");
    expect(saved(s).claude.access).toBe(s.server.issued[0]);
  });

  it("Ctrl-C while it waits for the browser: exit 130, and nothing saved", async () => {
    const s = await setup();
    const run = startLogin(s, ["claude"]);
    await run.said(AUTHORIZE_URL);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(130);
    expect(run.out.stderr).toContain("relm: sign-in cancelled; nothing was saved");
    expect(existsSync(join(s.home, "auth.json"))).toBe(false);
    expect(existsSync(join(s.home, "config.json"))).toBe(false);
    expect(s.server.requests.filter((r) => r.path === "/v1/oauth/token")).toEqual([]);
  });
});
