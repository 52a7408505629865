// Colours: body text keeps the terminal's own foreground and nothing is drawn in bright black (SGR 90,
// nearly invisible on Solarized Dark); /theme switches between dark, light and high contrast and is kept;
// without a choice, the terminal's background (OSC 11) picks light or dark.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

const SOLARIZED_DARK = "rgb:0000/2b2b/3636";
const SOLARIZED_LIGHT = "rgb:fdfd/f6f6/e3e3";
/** The secondary grey of each palette (src/tui/theme.ts). */
const GREY = { dark: 246, light: 242 };
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for the escape sequence itself
const BRIGHT_BLACK = /\u001b\[(?:[\d;]*;)?90(?:;[\d;]*)?m/;

describe("terminal UI colours", () => {
  it("keeps body text in the terminal's colour, never bright black; /theme switches and is kept", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "print('plain ' + 'output line')" }, { text: "answer text" }],
    });
    const ui = open(rig, [], { background: SOLARIZED_DARK });
    await ui.waitFor("new session");
    expect(ui.styleOf("new session").fg).toMatchObject({ mode: "palette", value: GREY.dark });
    await ui.type("print something");
    await ui.press("enter");
    await ui.waitFor(/answer text[\s\S]*✓ \d+ model calls? ·/);
    // Cell output is body text: the terminal's own foreground.
    expect(ui.styleOf("plain output line").fg.mode).toBe("default");
    expect(ui.output()).not.toMatch(BRIGHT_BLACK);

    await ui.type("/theme light");
    await ui.press("enter");
    await ui.waitFor("theme: light");
    expect(ui.styleOf("theme: light").fg).toMatchObject({ mode: "palette", value: GREY.light });
    expect(readFileSync(join(rig.home, "theme"), "utf8").trim()).toBe("light");
    await ui.type("/theme high-contrast");
    await ui.press("enter");
    await ui.waitFor("theme: high-contrast");
    expect(ui.styleOf("theme: high-contrast").fg.mode).toBe("default");
    await ui.type("/theme light");
    await ui.press("enter");
    await ui.waitFor("theme: light");
    expect(ui.output()).not.toMatch(BRIGHT_BLACK);
    await ui.press("ctrl-d");
    expect((await ui.waitForExit()).exitCode).toBe(0);

    // The saved choice wins over the terminal's dark background.
    const again = open(rig, [], { background: SOLARIZED_DARK });
    await again.waitFor("new session");
    expect(again.styleOf("new session").fg).toMatchObject({ mode: "palette", value: GREY.light });
    await again.press("ctrl-d");
    await again.waitForExit();
  });

  it("starts light on a light terminal and dark on a dark one when nothing is chosen", async () => {
    const rig = await startRig("openai", { script: [] });
    rmSync(join(rig.home, "theme"), { force: true });
    const light = open(rig, [], { background: SOLARIZED_LIGHT });
    await light.waitFor("new session");
    expect(light.styleOf("new session").fg).toMatchObject({ mode: "palette", value: GREY.light });
    await light.press("ctrl-d");
    await light.waitForExit();
    const dark = open(rig, [], { background: SOLARIZED_DARK });
    await dark.waitFor("new session");
    expect(dark.styleOf("new session").fg).toMatchObject({ mode: "palette", value: GREY.dark });
    // No answer at all (a terminal without OSC 11): dark, without waiting for the timeout to type.
    const silent = open(rig);
    await silent.waitFor("new session");
    expect(silent.styleOf("new session").fg).toMatchObject({ mode: "palette", value: GREY.dark });
    await silent.type("typed at once");
    await silent.waitFor("typed at once");
    expect(existsSync(join(rig.home, "theme"))).toBe(false);
    await dark.press("ctrl-d");
    await silent.press("ctrl-d");
  });
});
