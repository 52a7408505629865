// /search-setup: the web search provider for search(), chosen in the terminal UI, saved 0600 with the
// key masked on screen and kept beside the model's settings.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

describe("/search-setup", () => {
  it("picks a provider, keeps its public endpoint, takes the key masked and saves it", async () => {
    const key = "tvly-Secret9f3aKeyValue";
    const rig = await startRig("openai", { script: [{ text: "ok" }] });
    const ui = open(rig);
    await ui.waitFor("relm");
    await ui.type("/search-setup");
    await ui.press("enter");
    await ui.waitFor("Web search for search()");
    await ui.press("down", "down");
    await ui.press("enter");
    await ui.waitFor("Tavily: endpoint");
    await ui.press("enter");
    await ui.waitFor("Tavily: API key");
    await ui.type(key);
    await ui.waitFor(`(${key.length} characters)`);
    await ui.press("enter");
    await ui.waitFor(/✓ saved .*search\(\) uses Tavily/);
    expect(ui.screenText()).not.toContain(key);
    const path = join(rig.home, "config.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(path, "utf8"));
    expect(saved.search).toEqual({ provider: "tavily", apiKey: key });
    expect(saved.stream).toBe(true);
  });
});
