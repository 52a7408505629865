// Custom commands in the terminal UI: a project's .relm/commands/NAME.md is /NAME in the palette with its
// first line, and typing it sends the file's text, arguments filled in, as the person's message — and
// runs nothing on the host.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { untilJournal, useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

describe("custom commands in the terminal UI", () => {
  it("/NAME from .relm/commands is listed with its first line and sends its text with $ARGUMENTS and $1", async () => {
    const rig = await startRig("openai", {
      script: [(ctx) => ({ text: `got: ${ctx.lastUserText ?? ""}` })],
    });
    const dir = join(rig.cwd, ".relm", "commands");
    mkdirSync(dir, { recursive: true });
    const marker = join(rig.cwd, "ran-on-host");
    writeFileSync(
      join(dir, "review.md"),
      `Review the file $1 for bugs\nFocus: $ARGUMENTS\n!\`touch ${marker}\`\n`,
    );
    const ui = open(rig, [], { cols: 110 });
    await ui.waitFor("new session");
    await ui.type("/rev");
    // The palette lists it with the file's first line.
    await ui.waitFor(/review\s+Review the file \$1 for bugs/);
    await ui.press("escape");
    await ui.waitFor((s) => !s.includes("Review the file $1"));
    for (let i = 0; i < 4; i++) await ui.press("backspace");
    await ui.type("/review src/app.ts");
    await ui.press("enter");
    await ui.waitFor("got: Review the file src/app.ts for bugs", { where: "all" });
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "final"));
    const user = lines.find((e) => e.type === "user");
    expect(user?.text).toBe(`Review the file src/app.ts for bugs\nFocus: src/app.ts\n!\`touch ${marker}\``);
    expect(ui.allText()).toContain(`/review → ${join(dir, "review.md")}`);
    // A command file is prompt text only: its shell line was not run.
    expect(existsSync(marker)).toBe(false);
  });
});
