// Subscription sign-in end to end: `relm login claude` against a local authorization server (the test acts as
// the browser, following the URL relm prints to relm's callback), then runs on the scripted model that
// accept only the signed-in token: headers, refresh after a 401 (once), a clear failure, logout; and the
// tokens found nowhere relm writes, nor in the kernel's environment.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
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

/** `relm login claude`, with the test as the browser: it fetches the printed URL and follows the redirect. */
async function login(s: Setup): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [RELM_BIN, "login", "claude", "--model", MODEL], {
    env: s.env(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (c) => {
      code = c;
      resolve(c);
    }),
  );
  try {
    const url = await until(() => {
      if (code !== undefined)
        throw new Error(`relm login exited (${code}) before printing the URL: ${stderr}`);
      return stderr.match(/https?:\/\/\S+\/oauth\/authorize\?\S+/)?.[0];
    }, 60_000);
    expect(await actAsBrowser(url)).toBe(200);
    return { code: await exited, stdout, stderr };
  } finally {
    child.kill();
  }
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
