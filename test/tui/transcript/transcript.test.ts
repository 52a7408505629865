// The UI's transcript in a real terminal: live cell output, pastes, markdown, failed cells.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { echoLastCell } from "../../support/router.js";
import { untilJournal, useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

/** Prints six ticks; after ticks 0, 2 and 4 it holds until the test has seen them (file `seen-N` in `dir`). */
const slowCell = (dir: string) =>
  [
    "import os, time",
    "for i in range(6):",
    "    print(f'tick {i}', flush=True)",
    `    while i % 2 == 0 and i < 5 and not os.path.exists(os.path.join(${JSON.stringify(dir)}, f'seen-{i}')):`,
    "        time.sleep(0.02)",
  ].join("\n");

describe("terminal UI transcript", () => {
  it("shows each line of a running cell before the cell ends", async () => {
    let dir = "";
    const rig = await startRig("openai", {
      script: [() => ({ code: slowCell(dir) }), { text: "## Done\n\nAll **six** ticks." }],
    });
    dir = rig.cwd;
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("tick please");
    await ui.press("enter");
    // Every line appears while the cell is still running: its footer says "running", not ✓.
    for (const i of [0, 2, 4]) {
      const screen = await ui.waitFor(`tick ${i}`);
      if (i < 5) expect(screen).toMatch(/◌ running/);
      writeFileSync(join(dir, `seen-${i}`), "");
    }
    await ui.waitFor("All six ticks.");
    const screen = ui.screenText();
    expect(screen).toMatch(/✓ \d/);
    // Markdown is rendered: the heading's hashes and the emphasis markers are gone.
    expect(screen).toContain("Done");
    expect(screen).not.toContain("## Done");
    expect(screen).not.toContain("**six**");
    expect(ui.styleOf("six").bold).toBe(true);
    await ui.waitFor(/✓ \d+ model calls? ·/);
    await ui.press("ctrl-d");
    expect((await ui.waitForExit()).exitCode).toBe(0);
    expect(ui.allText()).toMatch(/session \w+ saved/);
  });

  it("streams the first turn of a new session as it is written, not only its final text", async () => {
    // The UI starts the session's host with the first message and attaches a moment later; the host
    // waits for it, so the answer's first words are on screen while the rest is still being written.
    const words = Array.from({ length: 40 }, (_, i) => `w${String(i + 1).padStart(2, "0")}`);
    const rig = await startRig("openai", { script: [{ text: words.join(" ") }], chunkDelayMs: 100 });
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("say the words");
    await ui.press("enter");
    const early = await ui.waitFor("w01");
    expect(early).not.toContain("w40");
    await ui.waitFor("w40");
    await ui.waitFor(/✓ \d+ model calls? ·/);
    await ui.press("ctrl-d");
    expect((await ui.waitForExit()).exitCode).toBe(0);
  });

  it("marks a failed cell as failed, a Python error and a shell command's non-zero status alike", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "1/0" }, { code: "!exit 3" }, { text: "both failed" }],
    });
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("fail twice");
    await ui.press("enter");
    await ui.waitFor("both failed");
    expect(ui.allText()).toContain("✗ ZeroDivisionError: division by zero");
    expect(ui.allText()).toContain("✗ exit status 3");
    expect(ui.styleOf("✗ ZeroDivisionError").fg.mode).not.toBe("default");
  });

  it("sends a pasted multi-line traceback as one message, one turn", async () => {
    const rig = await startRig("openai", { script: [{ text: "that is a KeyError" }] });
    const ui = open(rig);
    await ui.waitFor("new session");
    const traceback = [
      "Traceback (most recent call last):",
      '  File "app.py", line 3, in <module>',
      "    main()",
      "KeyError: 'user'",
    ].join("\r");
    await ui.type("why? ");
    await ui.paste(traceback);
    await ui.press("enter");
    await ui.waitFor("that is a KeyError");
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "final"));
    const users = lines.filter((e) => e.type === "user");
    expect(users).toHaveLength(1);
    expect(users[0]?.text).toContain("KeyError: 'user'");
    expect(String(users[0]?.text).split("\n")).toHaveLength(4);
    expect(rig.model.requests).toHaveLength(1);
  });

  it("turns a large paste into a kernel variable instead of prompt text", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "print(type(paste_1).__name__, len(paste_1), paste_1.count('\\n'))" }, echoLastCell],
    });
    const log = Array.from(
      { length: 1000 },
      (_, i) =>
        `2026-12-01T00:00:${String(i % 60).padStart(2, "0")} INFO request ${i} served in ${i % 97} ms`,
    ).join("\n");
    expect(log.length).toBeGreaterThan(50_000);
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("summarise this log: ");
    await ui.paste(log);
    // Worded unlike the editor's own prompt-text marker ([paste #1 +12 lines]): it names a kernel variable.
    await ui.waitFor(/\[kernel variable paste_1: [\d,]+ chars, 1,000 lines\]/);
    await ui.press("enter");
    await ui.waitFor(`str ${log.length} 999`);
    const first = rig.model.requests[0]?.rawBody ?? "";
    expect(first.length).toBeLessThan(30_000);
    expect(first).not.toContain("request 400 served");
    expect(first).toContain("paste_1");
  });
});
