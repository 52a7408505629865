// `relm login` without the full-screen picker: scripted (no terminal, or --api-key-stdin) and prompted
// line by line in a terminal that cannot draw the UI (TERM=dumb). The picker is tested with the UI.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, RELM_BIN, runRelm, tempDir } from "../../support/cli.js";
import { startRig } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

function config(home: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(home, "config.json"), "utf8")) as Record<string, unknown>;
}

describe("relm login, scripted", () => {
  it("keeps the current settings as defaults, and a saved key only for its own endpoint", async () => {
    const home = tempDir();
    try {
      const env = cleanEnv({ RELM_HOME: home.path });
      const first = await runRelm(
        ["login", "--api-key-stdin", "--model", "gpt-x", "--base-url", "https://llm.example/v1"],
        { env, input: "sk-first-key\n" },
      );
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout + first.stderr).not.toContain("sk-first-key");
      expect(statSync(join(home.path, "config.json")).mode & 0o777).toBe(0o600);

      // A new key alone: endpoint and model stay (it used to fall back to Ollama's URL).
      const rotated = await runRelm(["login", "--api-key-stdin"], { env, input: "sk-second-key\n" });
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(config(home.path)).toMatchObject({
        provider: "openai",
        baseUrl: "https://llm.example/v1",
        model: "gpt-x",
        apiKey: "sk-second-key",
      });

      // A new model on the same endpoint keeps the key; a new endpoint does not get it.
      await runRelm(["login", "--model", "gpt-y"], { env });
      expect(config(home.path)).toMatchObject({ model: "gpt-y", apiKey: "sk-second-key" });
      const moved = await runRelm(["login", "--base-url", "http://127.0.0.1:11434/v1"], { env });
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stdout).toContain("no saved key");
      expect(config(home.path)).toMatchObject({ baseUrl: "http://127.0.0.1:11434/v1", model: "gpt-y" });
      expect(config(home.path).apiKey).toBeUndefined();
    } finally {
      home.cleanup();
    }
  });

  it("refuses a missing or empty model before reading the key, naming --model", async () => {
    const home = tempDir();
    try {
      const env = cleanEnv({ RELM_HOME: home.path });
      for (const args of [
        ["login", "--api-key-stdin"],
        ["login", "--api-key-stdin", "--model", ""],
      ]) {
        const result = await runRelm(args, { env, input: "sk-never-used\n" });
        expect(result.code).toBe(2);
        // An empty --model is refused where every empty option value is (cli/blank-values.ts).
        expect(result.stderr).toMatch(/^relm: (login needs a model: --model NAME|option "--model <name>")/);
        expect(result.stderr).not.toContain("sk-never-used");
      }
      expect(() => statSync(join(home.path, "config.json"))).toThrow();
    } finally {
      home.cleanup();
    }
  });
});

describe("relm login NAME with a flag of the API-key sign-in", () => {
  it("refuses the flag, naming it, instead of ignoring it and waiting for a browser", async () => {
    const home = tempDir();
    try {
      const env = cleanEnv({ RELM_HOME: home.path, RELM_OAUTH_OPEN: "none" });
      for (const [flag, ...value] of [
        ["--api-key-stdin"],
        ["--provider", "anthropic"],
        ["--base-url", "https://llm.example/v1"],
      ] as [string, ...string[]][]) {
        const result = await runRelm(["login", "claude", flag, ...value], {
          env,
          input: "sk-never-used\n",
          timeoutMs: 30_000,
        });
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toContain(`relm: ${flag} is for an API key's endpoint`);
        expect(result.stdout).not.toContain("claude.ai");
      }
      const device = await runRelm(["login", "--device", "--model", "m"], { env, input: "sk-never-used\n" });
      expect(device.code).toBe(2);
      expect(device.stderr).toContain("relm: --device is for a subscription's sign-in");
      expect(() => statSync(join(home.path, "config.json"))).toThrow();
    } finally {
      home.cleanup();
    }
  });
});

describe("an API key that cannot be sent in a header", () => {
  // A key file of two lines (`relm login --api-key-stdin < key.txt`, `RELM_API_KEY="$(cat key.txt)"`)
  // was saved and sent as is: fetch refused the header, its error quoted "Bearer <the key>", and the
  // key went to stderr, the journal's model_retry events, state.json and the states index, five times.
  const KEY = "sk-secret-first-line\nsk-secret-second-line";

  it("is refused by relm login --api-key-stdin, and nothing is saved", async () => {
    const home = tempDir();
    try {
      const env = cleanEnv({ RELM_HOME: home.path });
      const result = await runRelm(["login", "--api-key-stdin", "--model", "m"], { env, input: `${KEY}\n` });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/^relm: --api-key-stdin: .*line break/);
      expect(result.stdout + result.stderr).not.toContain("sk-secret");
      expect(() => statSync(join(home.path, "config.json"))).toThrow();
    } finally {
      home.cleanup();
    }
  });

  it("is refused before any request, naming where it came from and never quoting it", async () => {
    const rig = await startRig("openai", { script: [{ text: "done" }] });
    try {
      for (const [where, env] of [
        ["RELM_API_KEY", { ...rig.env, RELM_API_KEY: KEY }],
        ["OPENAI_API_KEY", { ...rig.env, OPENAI_API_KEY: KEY }],
      ] as const) {
        const result = await runRelm(["run", "hello"], { env, cwd: rig.cwd });
        expect(result.code, result.stderr).toBe(1);
        expect(result.stderr).toMatch(new RegExp(`^relm: ${where}: .*line break`, "m"));
        expect(result.stdout + result.stderr).not.toContain("sk-secret");
      }
      writeFileSync(join(rig.home, "config.json"), JSON.stringify({ apiKey: KEY }));
      const fromFile = await runRelm(["run", "hello"], { env: rig.env, cwd: rig.cwd });
      expect(fromFile.code, fromFile.stderr).toBe(1);
      expect(fromFile.stderr).toContain(`apiKey in ${join(rig.home, "config.json")}`);
      expect(fromFile.stderr).not.toContain("sk-secret");
      expect(rig.model.requests).toHaveLength(0);
      const sessions = join(rig.home, "sessions");
      expect(existsSync(sessions) ? readdirSync(sessions) : []).toEqual([]);
    } finally {
      await rig.close();
    }
  });
});

describe("relm login, prompted in a terminal without the UI", () => {
  it("offers the current endpoint and model, and never echoes the key", async () => {
    const pty = await import("@lydell/node-pty");
    const home = tempDir();
    try {
      writeFileSync(
        join(home.path, "config.json"),
        JSON.stringify({ provider: "openai", baseUrl: "https://llm.example/v1", model: "gpt-x" }),
        { mode: 0o600 },
      );
      const term = pty.spawn(process.execPath, [RELM_BIN, "login"], {
        cols: 120,
        rows: 30,
        env: cleanEnv({ RELM_HOME: home.path, TERM: "dumb" }) as Record<string, string>,
      });
      let screen = "";
      term.onData((d) => {
        screen += d;
      });
      const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
      await until(() => screen.includes("[current: https://llm.example/v1]: ") || undefined);
      term.write("\r");
      await until(() => screen.includes("Model [gpt-x]: ") || undefined);
      term.write("\r");
      await until(() => screen.includes("API key (hidden") || undefined);
      term.write("sk-typed-secret\r");
      expect(await exited).toBe(0);
      expect(screen).toContain("saved ");
      expect(screen).not.toContain("sk-typed-secret");
      expect(config(home.path)).toMatchObject({
        baseUrl: "https://llm.example/v1",
        model: "gpt-x",
        apiKey: "sk-typed-secret",
      });
    } finally {
      home.cleanup();
    }
  });

  it("saves the provider preset of the entry picked: Ollama, LM Studio and vLLM are their own presets", async () => {
    const pty = await import("@lydell/node-pty");
    for (const [label, preset] of [
      ["Ollama (local)", "ollama"],
      ["LM Studio (local)", "lmstudio"],
      ["vLLM (local)", "vllm"],
    ] as const) {
      const home = tempDir();
      try {
        const term = pty.spawn(process.execPath, [RELM_BIN, "login", "--model", "qwen3"], {
          cols: 120,
          rows: 40,
          env: cleanEnv({ RELM_HOME: home.path, TERM: "dumb" }) as Record<string, string>,
        });
        let screen = "";
        term.onData((d) => {
          screen += d;
        });
        const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
        await until(() => screen.includes("Endpoint (a number") || undefined);
        const entry = new RegExp(`(\\d+)\\. ${label.replace(/[()]/g, "\\$&")}  (\\S+)`).exec(screen);
        expect(entry, screen).not.toBeNull();
        term.write(`${entry?.[1]}\r`);
        expect(await exited).toBe(0);
        expect(config(home.path)).toEqual({ provider: preset, baseUrl: entry?.[2], model: "qwen3" });
      } finally {
        home.cleanup();
      }
    }
  });
});
