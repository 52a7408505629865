// Every secret relm holds is redacted whichever provider the session uses: with auth.json signed in to
// subscriptions and config.json keeping another provider's key, a session on RELM_PROVIDER=openai whose
// cells print those files (and whose answers repeat a token) leaves no token in anything relm writes
// or prints: journal, host.log, exports, `relm logs`, snapshots, `relm run`'s stdout and --json events.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { initialize, startEditor, updatesOf } from "../../support/acp-editor.js";
import { runRelm } from "../../support/cli.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

const SECRETS = {
  claudeAccess: "sk-ant-oat01-claude-access-0123456789abcdef",
  claudeRefresh: "sk-ant-ort01-claude-refresh-fedcba9876543210",
  chatgptAccess: "eyJhbGciOi.chatgpt-access-token.0123456789",
  chatgptRefresh: "rt_chatgpt-refresh-token-abcdefghijklmnop",
  configKey: "sk-ant-api03-config-key-for-anthropic-0123",
  searchKey: "BSA-brave-search-key-0123456789abcdef",
  envKey: "sk-proj-active-openai-key-0123456789",
  otherEnvKey: "gsk_groq-key-in-the-environment-012345",
};

/** Every file relm wrote under its home, except the two files that hold the secrets by design. */
function writtenFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...writtenFiles(path));
    else if (entry.isFile() && !["auth.json", "config.json"].includes(entry.name)) out.push(path);
  }
  return out;
}

describe("every secret relm holds is redacted, whichever provider is active", () => {
  it("keeps other providers' keys and every subscription's tokens out of every file and output", async () => {
    // The cells read the files the way model-written code could (and keep them in variables: snapshots).
    const readAll = (home: string) =>
      [
        "import os",
        `auth = open(${JSON.stringify(join(home, "auth.json"))}).read()`,
        `conf = open(${JSON.stringify(join(home, "config.json"))}).read()`,
        "print(auth)",
        "print(conf)",
        "print(dict(os.environ))",
      ].join("\n");
    const rig = await startRig(
      "openai",
      {
        script: [
          // relm run: the cell prints the files, the answer repeats a token.
          () => ({ code: readAll(rig.home) }),
          { text: `The Claude token is ${SECRETS.claudeAccess} and that is all.` },
          // relm run --json: an answer streamed in 16-character pieces that cut through the tokens.
          { text: `Tokens: ${SECRETS.chatgptRefresh} then ${SECRETS.configKey}.` },
          // relm run --detach: its host writes host.log.
          () => ({ code: readAll(rig.home) }),
          { text: `The search key is ${SECRETS.searchKey}` },
        ],
      },
      {
        env: { RELM_API_KEY: SECRETS.envKey, GROQ_API_KEY: SECRETS.otherEnvKey },
        config: {
          apiKey: SECRETS.configKey,
          subscription: "claude",
          search: { provider: "brave", apiKey: SECRETS.searchKey },
        },
      },
    );
    const expires = Date.now() + 3_600_000;
    writeFileSync(
      join(rig.home, "auth.json"),
      JSON.stringify(
        {
          version: 1,
          subscriptions: {
            claude: { access: SECRETS.claudeAccess, refresh: SECRETS.claudeRefresh, expires },
            chatgpt: { access: SECRETS.chatgptAccess, refresh: SECRETS.chatgptRefresh, expires },
          },
        },
        null,
        2,
      ),
      { mode: 0o600 },
    );

    const run = await runRelm(["run", "read the files"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    // The answer is printed, redacted as the journal's copy.
    expect(run.stdout).toContain("The Claude token is [REDACTED] and that is all.");

    const json = await runRelm(["run", "--json", "repeat the tokens"], { env: rig.env, cwd: rig.cwd });
    expect(json.code, json.stderr).toBe(0);
    const events = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; delta?: string; text?: string });
    // The streamed pieces still add up to the answer, with the tokens redacted.
    const streamed = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : [])).join("");
    expect(streamed).toBe("Tokens: [REDACTED] then [REDACTED].");
    expect(events.find((e) => e.type === "final")?.text).toBe("Tokens: [REDACTED] then [REDACTED].");

    const started = await runRelm(["run", "--detach", "read them again"], { env: rig.env, cwd: rig.cwd });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    const logs = await runRelm(["logs", id, "--follow"], { env: rig.env });
    await runRelm(["shutdown"], { env: rig.env });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain("The search key is [REDACTED]");

    const sessions = readdirSync(join(rig.home, "sessions"));
    expect(sessions).toHaveLength(3);
    const exports: string[] = [];
    for (const session of sessions) {
      for (const format of ["md", "ipynb"]) {
        const out = await runRelm(["export", session, "--format", format], { env: rig.env });
        expect(out.code, out.stderr).toBe(0);
        exports.push(out.stdout);
      }
      const log = await runRelm(["logs", session], { env: rig.env });
      expect(log.code, log.stderr).toBe(0);
      exports.push(log.stdout);
    }

    const files = writtenFiles(rig.home);
    expect(files.some((f) => f.endsWith("journal.jsonl"))).toBe(true);
    expect(files.some((f) => f.endsWith("host.log"))).toBe(true);
    expect(files.some((f) => f.includes(`${join("snapshot", "")}`))).toBe(true);
    // The cells did read the files: their text is in the journal, with every secret in it redacted.
    const journals = files.filter((f) => f.endsWith("journal.jsonl")).map((f) => readFileSync(f, "utf8"));
    expect(journals.join("\n")).toContain('\\"refresh\\": \\"[REDACTED]\\"');
    const seen: [string, string][] = [
      ["relm run", run.stdout + run.stderr],
      ["relm run --json", json.stdout + json.stderr],
      ["relm run --detach", started.stdout + started.stderr],
      ["relm logs --follow", logs.stdout + logs.stderr],
      ...exports.map((text, i): [string, string] => [`export/logs #${i}`, text]),
      ...files.map((f): [string, string] => [f, readFileSync(f, "latin1")]),
    ];
    for (const [name, secret] of Object.entries(SECRETS)) {
      const found = seen.filter(([, text]) => text.includes(secret)).map(([where]) => where);
      expect(found, `${name} found`).toEqual([]);
    }
  });

  it("live pieces a session host sends its clients (here an editor over ACP) are redacted too", async () => {
    const key = SECRETS.envKey;
    const rig = await startRig(
      "openai",
      {
        script: [
          // Cell output as it streams, and an answer whose 16-character pieces cut through the key.
          {
            code: "import os, sys\nprint('in the cell:', os.environ.get('SHARED_TOKEN'))\nsys.stdout.flush()",
          },
          { text: `The key is ${key}, twice: ${key}.` },
        ],
      },
      { env: { RELM_API_KEY: key, SHARED_TOKEN: key } },
    );
    const editor = startEditor(rig, { ...rig.env });
    try {
      await initialize(editor);
      const { sessionId } = await editor.conn.agent.request("session/new", { cwd: rig.cwd, mcpServers: [] });
      // --pass-env is not given: the kernel does not see SHARED_TOKEN; the answer repeats the key itself.
      const done = await editor.conn.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "say the key" }],
      });
      expect(done.stopReason, editor.stderr()).toBe("end_turn");
      const everything = JSON.stringify(editor.updates);
      const said = updatesOf(editor, sessionId, "agent_message_chunk")
        .map((u) => (u.content as { text: string }).text)
        .join("");
      expect(said).toContain("The key is [REDACTED], twice: [REDACTED].");
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.slice(0, 16));
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });
});
