// The input editor: multi-line messages, the command palette, @file completion, queued messages while
// the agent works, history across runs, and `relm "task"` as the first message.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionClient } from "../../../src/host/client.js";
import { sessionIds, untilJournal, useTui } from "../../support/tui.js";
import { pythonWaitForFile, until } from "../../support/wait.js";

const { startRig, open } = useTui();
/** The line that closes a turn: only then is the agent idle (the answer's text shows a little earlier). */
const TURN_ENDED = /✓ \d+ model calls? ·/;

/** How many messages the only session's host holds for the agent (its own info). */
async function queuedAtHost(home: string): Promise<number> {
  const [id] = sessionIds(home);
  const client = id ? await SessionClient.connect(home, id) : undefined;
  if (!client) return 0;
  try {
    return (await client.call("info")).queued;
  } finally {
    client.close();
  }
}

describe("terminal UI input", () => {
  it("Alt+Enter and Shift+Enter add lines; Enter sends them as one message", async () => {
    const rig = await startRig("openai", { script: [{ text: "three lines received" }] });
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("first line");
    await ui.press("alt-enter");
    await ui.type("second line");
    await ui.press("shift-enter");
    await ui.type("third line");
    await ui.press("enter");
    await ui.waitFor("three lines received");
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "final"));
    expect(lines.filter((e) => e.type === "user").map((e) => e.text)).toEqual([
      "first line\nsecond line\nthird line",
    ]);
  });

  it("completes commands from the palette with descriptions, and @ completes a project file", async () => {
    const rig = await startRig("openai", { script: [{ text: "read it" }] });
    mkdirSync(join(rig.cwd, "src"), { recursive: true });
    writeFileSync(join(rig.cwd, "src", "parser_module.py"), "x = 1\n");
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("/autono");
    await ui.waitFor("keep going until the gates pass");
    await ui.press("tab");
    await ui.waitFor(/\/autonomous\s*$/m);
    await ui.press("ctrl-u");
    await ui.type("look at @parsmod");
    const listed = await ui.waitFor("src/parser_module.py");
    // Each path once, not a file name and then its path again.
    expect(listed.match(/parser_module\.py/g)).toHaveLength(1);
    await ui.press("tab");
    await ui.waitFor("look at @src/parser_module.py");
    await ui.press("enter");
    await ui.waitFor("read it");
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "final"));
    expect(lines.find((e) => e.type === "user")?.text).toBe("look at @src/parser_module.py");
  });

  it("queues a message typed while the agent works and delivers it at the next step", async () => {
    let release = "";
    const rig = await startRig("openai", {
      script: [
        // Works until the test has seen the message queued (a 3 s cell could end before the typing landed).
        () => ({ code: `print('counting', flush=True)\n${pythonWaitForFile(release)}` }),
        { text: "first done" },
      ],
      onExhausted: "repeat-last",
    });
    release = join(rig.cwd, "stop-counting");
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("count slowly");
    await ui.press("enter");
    await ui.waitFor("◌ running");
    await ui.type("also check the docs");
    await ui.press("enter");
    await ui.waitFor("⋯ queued: also check the docs");
    // The UI shows it queued before it is sent: the cell ends once the host holds it.
    await until(async () => ((await queuedAtHost(rig.home)) > 0 ? true : undefined));
    writeFileSync(release, "");
    const lines = await untilJournal(rig.home, (l) =>
      l.some((e) => e.type === "message" && e.from === "user" && e.text === "also check the docs"),
    );
    expect(lines.filter((e) => e.type === "user")).toHaveLength(1);
    await ui.waitFor((screen) => !screen.includes("⋯ queued"));
    // The model read it in the same turn, after the cell.
    await ui.waitFor("first done");
    expect(rig.model.requests.at(-1)?.rawBody).toContain("also check the docs");
  });

  it("keeps input history per directory across runs (Up, Ctrl-R)", async () => {
    const rig = await startRig("openai", { script: [{ text: "ok" }], onExhausted: "repeat-last" });
    const first = open(rig);
    await first.waitFor("new session");
    await first.type("remember this prompt");
    await first.press("enter");
    await first.waitFor(TURN_ENDED);
    await first.press("ctrl-d");
    await first.waitForExit();

    const second = open(rig);
    await second.waitFor("new session");
    await second.press("up");
    await second.waitFor(/^ ?remember this prompt/m);
    await second.press("ctrl-u");
    await second.press("ctrl-r");
    await second.waitFor("Search history");
    await second.type("rememb");
    await second.press("enter");
    await second.waitFor(/^ ?remember this prompt/m);
  });

  it('relm "task" opens the UI with that first message', async () => {
    const rig = await startRig("openai", { script: [{ text: "started from the command line" }] });
    const ui = open(rig, ["summarise the repository"]);
    await ui.waitFor("started from the command line");
    expect(ui.allText()).toContain("› summarise the repository");
  });
});
