import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, closedPort, runRelm, tempDir } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

describe("model failures and budgets", () => {
  it("retries a 500 and finishes", async () => {
    const rig = await startRig("openai", {
      script: [{ status: 500, body: "overloaded" }, { code: "print(2 + 2)" }, { text: "four" }],
    });
    const result = await runRelm(["run", "add"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("four");
    expect(rig.model.requests).toHaveLength(3);
    const { lines } = onlyJournal(rig.home);
    expect(lines.some((l) => l.type === "model_retry")).toBe(true);
  });

  it("retries a dropped stream and finishes", async () => {
    const rig = await startRig("anthropic", { script: [{ drop: true }, { text: "whole answer" }] });
    const result = await runRelm(["run", "answer"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("whole answer");
  });

  it.each(["openai", "anthropic"] as const)(
    "%s: a stream that never finishes is retried, and is an error when it never does",
    async (format) => {
      const rig = await startRig(format, { script: [{ unfinished: true }, { text: "whole answer" }] });
      const result = await runRelm(["run", "answer"], { env: rig.env, cwd: rig.cwd });
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe("whole answer");
      const failing = await startRig(format, { script: [{ unfinished: true }], onExhausted: "repeat-last" });
      const failed = await runRelm(["run", "answer"], { env: failing.env, cwd: failing.cwd });
      expect(failed.code).toBe(1);
      expect(failed.stdout.trim()).toBe("");
      expect(failed.stderr).toMatch(/finish|message_stop/);
    },
  );

  it("says a model error once, not again as relm's closing line", async () => {
    const rig = await startRig("openai", {
      script: [{ status: 400, body: '{"error":{"message":"context too long for this model"}}' }],
    });
    const result = await runRelm(["run", "hi"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(1);
    expect(result.stderr.match(/context too long for this model/g)).toHaveLength(1);
    expect(result.stderr).toMatch(/✗ model error: .*context too long for this model/);
    expect(result.stderr).toMatch(/relm run --resume/);
  });

  it("compacts a prompt the server refuses as too long and sends it again, saying so", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "print('row ' * 1500)" },
        { code: "print('done counting')" },
        { tooLong: true },
        { text: "## Goal\nCount the rows.\n\n## Progress so far\nCounted them." },
        { text: "4000 rows" },
      ],
    });
    const result = await runRelm(["run", "count the rows"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("4000 rows");
    expect(result.stderr).toMatch(
      /⚠ the prompt is too long for the context window of model "scripted" \(HTTP 400\): This model's maximum context length is \d+ tokens.*; compacting the conversation and sending the request again/,
    );
    expect(result.stderr).toMatch(/⇊ compacted 3 messages/);
    expect(rig.model.requests).toHaveLength(5);
  });

  it("explains a 401 without printing the key, exit 1", async () => {
    const key = "sk-test-secret-key-1234567890";
    const rig = await startRig(
      "openai",
      { script: [{ text: "never" }], requireApiKey: "sk-the-right-one-0000" },
      { env: { RELM_API_KEY: key } },
    );
    const result = await runRelm(["run", "hello"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/API key/);
    expect(result.stderr).toMatch(/401/);
    expect(result.stderr + result.stdout).not.toContain(key);
    expect(onlyJournal(rig.home).raw).not.toContain(key);
  });

  it("names where a rejected key and an unknown model came from: config.json, a flag, a preset's variable", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ text: "never" }], requireApiKey: "sk-the-right-one-0000", models: ["scripted"] },
      { config: { apiKey: "sk-saved-by-login-0000" } },
    );
    const config = `${rig.home}/config.json`;
    const saved = await runRelm(["run", "hello"], { env: rig.env, cwd: rig.cwd });
    expect(saved.code).toBe(1);
    expect(saved.stderr).toContain(`rejected the API key (HTTP 401); check apiKey in ${config}`);
    const fromEnv = await runRelm(["run", "hello"], {
      env: { ...rig.env, OPENAI_API_KEY: "sk-exported-0000" },
      cwd: rig.cwd,
    });
    expect(fromEnv.stderr).toContain("check OPENAI_API_KEY");
    const right = { ...rig.env, RELM_API_KEY: "sk-the-right-one-0000" };
    const flag = await runRelm(["run", "--model", "scripted-typo", "hello"], { env: right, cwd: rig.cwd });
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain("(HTTP 404); check --model and RELM_BASE_URL");
    expect(flag.stderr).not.toContain("RELM_MODEL");
  });

  it("stops at --max-turns with exit 3 and names the budget", async () => {
    const rig = await startRig("openai", { script: [{ code: "print(1)" }, { text: "never reached" }] });
    const result = await runRelm(["run", "--max-turns", "1", "two turns"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/max-turns/);
    expect(rig.model.requests).toHaveLength(1);
    expect(
      onlyJournal(rig.home).lines.some((l) => l.type === "budget_stop" && l.budget === "max-turns"),
    ).toBe(true);
  });

  it("--max-time 0 means no time limit, not a run over before it starts", async () => {
    const rig = await startRig("openai", { script: [{ code: "print(6 * 7)" }, { text: "forty-two" }] });
    const result = await runRelm(["run", "--max-time", "0", "multiply"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("forty-two");
    expect(onlyJournal(rig.home).lines.some((l) => l.type === "budget_stop")).toBe(false);
    const bad = await runRelm(["run", "--max-time", "-1", "x"], { env: rig.env, cwd: rig.cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^relm: invalid --max-time "-1"/);
  });

  it("stops at --max-tokens with exit 3", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "print(1)" }, { code: "print(2)" }, { text: "never" }],
    });
    const result = await runRelm(["run", "--max-tokens", "10", "spend"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/max-tokens/);
  });

  it("takes a model name without the blanks around it, and a blank one as none", async () => {
    const rig = await startRig("openai", { script: [{ text: "hello back" }], models: ["scripted"] });
    // A name read from a file with CRLF line ends, or a .env line with a trailing blank.
    const padded = await runRelm(["run", "hello"], {
      env: { ...rig.env, RELM_MODEL: " scripted\r\n" },
      cwd: rig.cwd,
    });
    expect(padded.code, padded.stderr).toBe(0);
    expect(padded.stdout.trim()).toBe("hello back");
    const blank = await runRelm(["run", "hello"], { env: { ...rig.env, RELM_MODEL: "  " }, cwd: rig.cwd });
    expect(blank.code).toBe(1);
    expect(blank.stderr).toMatch(/no model configured/);
    expect(rig.model.requests).toHaveLength(1);
  });

  it("says exactly what to set when no model is configured", async () => {
    const home = tempDir();
    try {
      const result = await runRelm(["run", "hello"], { env: cleanEnv({ RELM_HOME: home.path }) });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/RELM_MODEL/);
      expect(result.stderr).toMatch(/11434/);
    } finally {
      home.cleanup();
    }
  });

  it("reports an unreachable endpoint clearly", async () => {
    const home = tempDir();
    try {
      const port = await closedPort();
      const env = cleanEnv({
        RELM_HOME: home.path,
        RELM_BASE_URL: `http://127.0.0.1:${port}/v1`,
        RELM_MODEL: "m",
      });
      const result = await runRelm(["run", "hello"], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`127.0.0.1:${port}`);
      expect(result.stderr).toMatch(/not running or not reachable/);
      // Connection refused is not worth retrying: no retry was announced.
      expect(result.stderr).not.toMatch(/retry/);
    } finally {
      home.cleanup();
    }
  });

  it("rejects bad flags with exit 2", async () => {
    const result = await runRelm(["run", "--max-turns", "zero", "x"], { env: cleanEnv({ RELM_MODEL: "m" }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--max-turns/);
  });

  it("--mcp-config a directory, a file that is not JSON or not there: a usage error naming the flag and the file, exit 2", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const dir = join(rig.cwd, "servers-dir");
    mkdirSync(dir);
    writeFileSync(join(rig.cwd, "bad.json"), "{ not json");
    writeFileSync(join(rig.cwd, "list.json"), "[1, 2]");
    for (const file of ["servers-dir", "bad.json", "list.json", "missing.json"]) {
      const result = await runRelm(["run", "--mcp-config", file, "x"], { env: rig.env, cwd: rig.cwd });
      expect({ file, code: result.code }).toEqual({ file, code: 2 });
      expect(result.stderr).toContain(`relm: --mcp-config ${join(rig.cwd, file)}`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(rig.model.requests).toHaveLength(0);
  });
});
