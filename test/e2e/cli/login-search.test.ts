// `relm login --search`: the web search provider saved in config.json's `search` (0600), scripted and
// prompted in a terminal, with the key never echoed; the rest of the configuration is kept.

import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, RELM_BIN, runRelm, tempDir } from "../../support/cli.js";
import { until } from "../../support/wait.js";

function config(home: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(home, "config.json"), "utf8")) as Record<string, unknown>;
}

describe("relm login --search", () => {
  it("saves a provider and its key from stdin, keeps the model settings, refuses what is missing", async () => {
    const home = tempDir();
    try {
      const modelSettings = { model: "gpt-x", apiKey: "sk-model", baseUrl: "http://127.0.0.1:9/v1" };
      writeFileSync(join(home.path, "config.json"), JSON.stringify(modelSettings), { mode: 0o644 });
      const env = cleanEnv({ RELM_HOME: home.path });
      const saved = await runRelm(["login", "--search", "brave", "--api-key-stdin"], {
        env,
        input: "brave-secret-key\n",
      });
      expect(saved.code, saved.stderr).toBe(0);
      expect(saved.stdout).toContain("search() uses brave at https://api.search.brave.com/res/v1/web/search");
      expect(saved.stdout + saved.stderr).not.toContain("brave-secret-key");
      expect(statSync(join(home.path, "config.json")).mode & 0o777).toBe(0o600);
      expect(config(home.path)).toEqual({
        ...modelSettings,
        search: { provider: "brave", apiKey: "brave-secret-key" },
      });
      // relm doctor names the provider, never the key.
      const doctor = await runRelm(["doctor"], { env });
      expect(doctor.stdout).toMatch(/ok\s+web\s+search\(\): brave, key saved; PDFs/);
      expect(doctor.stdout + doctor.stderr).not.toContain("brave-secret-key");

      const noUrl = await runRelm(["login", "--search", "searxng"], { env });
      expect(noUrl.code).toBe(2);
      expect(noUrl.stderr).toContain("searxng needs the instance's URL: --base-url");
      const noKey = await runRelm(["login", "--search", "tavily"], { env });
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toContain("tavily needs an API key: pipe it in with --api-key-stdin");
      const unknown = await runRelm(["login", "--search", "bing"], { env });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(
        '"bing" is not a search provider; use one of searxng, brave, tavily, serper, exa',
      );

      const searx = await runRelm(["login", "--search", "searxng", "--base-url", "http://127.0.0.1:8888/"], {
        env,
      });
      expect(searx.code, searx.stderr).toBe(0);
      expect(config(home.path).search).toEqual({ provider: "searxng", baseUrl: "http://127.0.0.1:8888" });
    } finally {
      home.cleanup();
    }
  });

  it("prompts in a terminal: provider, endpoint, hidden key", async () => {
    const pty = await import("@lydell/node-pty");
    const home = tempDir();
    try {
      const term = pty.spawn(process.execPath, [RELM_BIN, "login", "--search"], {
        cols: 120,
        rows: 30,
        env: cleanEnv({ RELM_HOME: home.path, TERM: "dumb" }) as Record<string, string>,
      });
      let screen = "";
      term.onData((d) => {
        screen += d;
      });
      const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
      await until(() => screen.includes("Search provider (a number or a name) [brave]: ") || undefined);
      term.write("4\r");
      await until(() => screen.includes("Endpoint [https://google.serper.dev/search]: ") || undefined);
      term.write("\r");
      await until(() => screen.includes("API key (hidden; required)") || undefined);
      term.write("serper-typed-secret\r");
      expect(await exited).toBe(0);
      expect(screen).not.toContain("serper-typed-secret");
      expect(config(home.path)).toEqual({ search: { provider: "serper", apiKey: "serper-typed-secret" } });
    } finally {
      home.cleanup();
    }
  });
});
