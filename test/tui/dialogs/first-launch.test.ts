// The first-launch picker (no model configured): where it opens, what it leaves behind once a model is
// saved, the subscriptions' descriptions read whole, the test request's outcome said, and a message
// sent before a model was chosen kept.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SUBSCRIPTIONS } from "../../../src/config/subscriptions.js";
import { cleanEnv } from "../../support/cli.js";
import type { Pty } from "../../support/pty.js";
import type { Rig } from "../../support/scripted.js";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();
const NOTICE = "No model is configured yet";

/** `relm` with no config.json; Ollama's variable points the picker's Ollama entry at the rig. */
function firstLaunch(rig: Rig, cols: number, rows: number): Pty {
  rmSync(join(rig.home, "config.json"));
  const env = cleanEnv({ RELM_HOME: rig.home, OLLAMA_HOST: `127.0.0.1:${new URL(rig.model.url).port}` });
  return open(rig, [], { env, cols, rows });
}

/** Picks Ollama (the rig), its address as offered, and the model typed as `model`. */
async function chooseOllama(ui: Pty, model: string): Promise<void> {
  await ui.waitFor(/Ollama \(local\).*running/);
  await ui.press("down", "down", "down", "enter");
  await ui.waitFor("Ollama's address");
  await ui.press("enter");
  await ui.waitFor("Choose a model (");
  await ui.type(model);
  await ui.press("enter");
}

/** The text inside the open dialog's frame, its rows joined and spaces collapsed. */
function dialogText(ui: Pty): string {
  return ui
    .screen()
    .filter((row) => row.includes("│"))
    .map((row) => row.slice(row.indexOf("│") + 1, row.lastIndexOf("│")))
    .join(" ")
    .replace(/\s+/g, " ");
}

describe("terminal UI first-launch picker", () => {
  it("opens where the UI is, says why inside itself, and leaves only what was saved and what the test found", async () => {
    const rig = await startRig("openai", { models: ["qwen-test"], script: [{ text: "ok" }] });
    const ui = firstLaunch(rig, 120, 50);
    await ui.waitFor("Choose a model provider");
    const screen = ui.screen();
    const top = screen.findIndex((row) => row.includes("╭") && row.includes("Choose a model provider"));
    // The UI takes the first 8 rows: the picker starts there (over the input), not in the empty rows below.
    expect(top, ui.dump()).toBeLessThanOrEqual(1);
    // The reason is the picker's own text, not a line left in the transcript.
    expect(dialogText(ui)).toContain(`${NOTICE}: choose a provider to start.`);
    await chooseOllama(ui, "qwen");
    await ui.waitFor(/✓ saved .*config\.json: qwen-test/);
    await ui.waitFor("a one-token test request to qwen-test answered");
    expect(ui.allText()).not.toContain(NOTICE);
  });

  it("says when the test request failed, with the endpoint's reason, if saved anyway", async () => {
    const rig = await startRig("openai", {
      models: ["qwen-test"],
      script: [{ status: 404, body: '{"error":{"message":"model qwen-test is not loaded"}}' }],
    });
    const ui = firstLaunch(rig, 100, 40);
    await ui.waitFor("Choose a model provider");
    await chooseOllama(ui, "qwen");
    await ui.waitFor("The test request failed");
    expect(dialogText(ui)).toContain("model qwen-test is not loaded");
    await ui.press("down");
    await ui.waitFor("→ Save anyway");
    await ui.press("enter");
    await ui.waitFor(/saved although the test request failed: [\s\S]*model qwen-test is not\s+loaded/);
  });

  for (const cols of [80, 120]) {
    it(`shows each subscription's whole description at ${cols} columns`, async () => {
      const rig = await startRig("openai", { script: [] });
      const ui = firstLaunch(rig, cols, 40);
      await ui.waitFor("Choose a model provider");
      await ui.waitFor(/Ollama \(local\)/);
      for (const s of SUBSCRIPTIONS) {
        // Down to the entry: the chosen row is marked with →.
        while (!ui.screen().some((row) => row.includes(`→ ${s.label}`))) {
          const before = ui.screenText();
          await ui.press("down");
          await ui.waitFor((text) => text !== before);
        }
        expect(dialogText(ui), ui.dump()).toContain(s.description);
      }
      await ui.press("ctrl-c");
      expect((await ui.waitForExit()).exitCode).toBe(130);
    });
  }

  it("keeps a message sent before a model was chosen in the input, and sends it once one is", async () => {
    const rig = await startRig("openai", {
      models: ["qwen-test"],
      script: [{ text: "ok" }, { text: "hello from qwen" }],
    });
    const ui = firstLaunch(rig, 100, 40);
    await ui.waitFor("Choose a model provider");
    await ui.press("escape");
    await ui.waitFor("No model yet: /login chooses one");
    await ui.type("summarise the notes");
    await ui.press("enter");
    // Not dropped: the picker opens to choose the model it needs, and the message waits in the input.
    await ui.waitFor("Choose a model provider");
    await chooseOllama(ui, "qwen");
    await ui.waitFor(/✓ saved .*qwen-test/);
    expect(ui.screenText()).toContain("your message stays in the input");
    // The input row (between the two rules) holds it.
    await ui.waitFor(/─\n summarise the notes *\n─/);
    await ui.press("enter");
    await ui.waitFor("hello from qwen");
    expect(rig.bodies().at(-1)).toContain("summarise the notes");
  });
});
