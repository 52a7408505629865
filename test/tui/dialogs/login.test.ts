// First launch: with no model configured, `relm` opens the provider picker instead of exiting.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv } from "../../support/cli.js";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe("terminal UI first launch", () => {
  it("picks an Ollama-style endpoint, its model from /models, tests it and saves the config 0600", async () => {
    const rig = await startRig("openai", {
      models: ["llama-test", "qwen-test"],
      script: [{ text: "ok" }, { text: "hello from qwen" }],
    });
    rmSync(join(rig.home, "config.json"));
    const port = new URL(rig.model.url).port;
    // Nothing configured: no RELM_* model settings; Ollama's own variable says where it listens.
    const env = cleanEnv({ RELM_HOME: rig.home, OLLAMA_HOST: `127.0.0.1:${port}` });
    const ui = open(rig, [], { env });
    await ui.waitFor("Choose a model provider");
    await ui.waitFor(/Ollama \(local\).*running, 2 model/);
    await ui.press("down", "down", "down");
    await ui.press("enter");
    await ui.waitFor("Ollama's address");
    await ui.press("enter");
    await ui.waitFor("Choose a model (2 at");
    await ui.type("qwen");
    await ui.press("enter");
    await ui.waitFor(/✓ saved .*config\.json: qwen-test/);
    // What the test request found is said, not only the save.
    await ui.waitFor("a one-token test request to qwen-test answered");
    // The first launch says which permission mode the user gets (this test pins full: RELM_MODE).
    await ui.waitFor(/Permission mode: full — no sandbox: [\s\S]*\(shift\+tab or \/mode changes it/);
    const path = join(rig.home, "config.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // The preset picked, as docs/providers.md names it: a local server, so no price is looked up.
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({
      provider: "ollama",
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: "qwen-test",
    });
    // The one-token test request went to the chosen model.
    expect(JSON.parse(rig.model.requests[0]?.rawBody ?? "{}")).toMatchObject({
      model: "qwen-test",
      max_tokens: 1,
    });
    // And the session works with it at once.
    await ui.type("hi");
    await ui.press("enter");
    await ui.waitFor("hello from qwen");
  });

  it("types the key masked; it is never on screen nor in any file but the config", async () => {
    const key = "sk-test-Zq8v3LmT0pSecretKeyValue";
    const rig = await startRig("openai", {
      requireApiKey: key,
      models: ["served-model"],
      script: [{ text: "ok" }],
    });
    rmSync(join(rig.home, "config.json"));
    const env = cleanEnv({ RELM_HOME: rig.home });
    const ui = open(rig, [], { env });
    await ui.waitFor("Choose a model provider");
    await ui.press("down", "down", "down", "down");
    await ui.press("enter");
    await ui.waitFor("The server's base URL");
    await ui.press("ctrl-u");
    await ui.type(rig.model.openaiBaseUrl);
    await ui.press("enter");
    await ui.waitFor("API key");
    await ui.type(key);
    await ui.waitFor(`(${key.length} characters)`);
    await ui.press("enter");
    await ui.waitFor("Choose a model (1 at");
    await ui.press("enter");
    await ui.waitFor(/✓ saved .*served-model/);
    expect(ui.allText()).not.toContain(key);
    expect(ui.output()).not.toContain(key);
    const config = join(rig.home, "config.json");
    expect(JSON.parse(readFileSync(config, "utf8")).apiKey).toBe(key);
    for (const file of [...filesUnder(rig.home), ...filesUnder(rig.cwd)]) {
      if (file === config) continue;
      expect(readFileSync(file).includes(key), file).toBe(false);
    }
  });

  it("Ctrl-C cancels with exit 130 and writes nothing; Esc goes back a step", async () => {
    const rig = await startRig("openai", { script: [{ text: "unused" }] });
    rmSync(join(rig.home, "config.json"));
    const env = cleanEnv({ RELM_HOME: rig.home });
    const ui = open(rig, [], { env });
    await ui.waitFor("Choose a model provider");
    await ui.press("down", "enter");
    // The key step's own words: the provider picker says "API key" too.
    await ui.waitFor("Paste the API key");
    await ui.press("escape");
    await ui.waitFor("Choose a model provider");
    await ui.press("ctrl-c");
    expect((await ui.waitForExit()).exitCode).toBe(130);
    expect(existsSync(join(rig.home, "config.json"))).toBe(false);
  });

  it("relm login in a terminal is the same picker; it keeps the current settings as defaults", async () => {
    const rig = await startRig("openai", {
      models: ["first-model", "second-model"],
      script: [{ text: "ok" }],
      onExhausted: "repeat-last",
    });
    const port = new URL(rig.model.url).port;
    const env = cleanEnv({ RELM_HOME: rig.home, OLLAMA_HOST: `127.0.0.1:${port}` });
    rmSync(join(rig.home, "config.json"));
    const first = open(rig, ["login"], { env });
    await first.waitFor("Choose a model provider");
    await first.press("down", "down", "down", "enter");
    await first.waitFor("Ollama's address");
    await first.press("enter");
    await first.waitFor("Choose a model");
    await first.type("second");
    await first.press("enter");
    expect((await first.waitForExit()).exitCode).toBe(0);
    expect(first.allText()).toMatch(/saved .*config\.json \(second-model at http:\/\/127\.0\.0\.1:\d+\/v1\)/);
    // Run again: the picker starts on the saved endpoint and the model list on the saved model.
    const again = open(rig, ["login"], { env });
    await again.waitFor("Choose a model provider");
    await again.press("enter");
    await again.waitFor("Ollama's address");
    await again.press("enter");
    await again.waitFor(/→ second-model/);
    await again.press("ctrl-c");
    expect((await again.waitForExit()).exitCode).toBe(130);
    expect(JSON.parse(readFileSync(join(rig.home, "config.json"), "utf8")).model).toBe("second-model");
  });
});
