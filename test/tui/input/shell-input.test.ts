// `!command` in the terminal UI: run in the session's kernel between turns, shown like a cell, and read
// by the model with the next message (as Claude Code, Codex and pi do).
import { describe, expect, it } from "vitest";
import { untilJournal, useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

describe("!command in the terminal UI", () => {
  it("runs in the kernel as a cell of its own; its output goes to the model with the next message", async () => {
    const rig = await startRig("openai", {
      script: [
        { text: "hello there" },
        (ctx) => ({ text: `model saw: ${/shell-said-\d+/.exec(ctx.rawBody)?.[0] ?? "nothing"}` }),
      ],
    });
    const ui = open(rig, [], { cols: 110 });
    await ui.waitFor("new session");
    await ui.type("hello");
    await ui.press("enter");
    await ui.waitFor(/✓ 1 model call/);
    await ui.type("!echo shell-said-$((40+2)); exit 3");
    await ui.press("enter");
    // Shown like a cell: the command, then its output and the exit status.
    await ui.waitFor(/shell-said-42[\s\S]*\[exit status 3\]/);
    expect(ui.screenText()).toContain("!echo shell-said-$((40+2)); exit 3");
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "cell_output"));
    const cell = lines.find((e) => e.type === "cell");
    expect(cell?.callId).toMatch(/^shell-/);
    expect(cell?.code).toBe("!echo shell-said-$((40+2)); exit 3");
    // No model call was made for it; the next message carries it.
    expect(rig.model.requests).toHaveLength(1);
    await ui.type("what did it print?");
    await ui.press("enter");
    await ui.waitFor("model saw: shell-said-42");
    const body = rig.model.requests.at(-1)?.rawBody ?? "";
    expect(body).toContain("[the user ran a shell command in the kernel]");
  });
});
