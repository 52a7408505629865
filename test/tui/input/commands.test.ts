// Slash commands and the agent panel's actions, through the real UI and its session host.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { byTask } from "../../support/router.js";
import { sessionIds, untilJournal, useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

describe("terminal UI commands", () => {
  it("/model picks from the endpoint's models; the switch is journaled and used by the next turn", async () => {
    const rig = await startRig("openai", {
      models: ["scripted", "bigger-model"],
      script: [{ text: "from the first model" }, { text: "from the bigger one" }],
    });
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("hello");
    await ui.press("enter");
    await ui.waitFor("from the first model");
    await ui.type("/model");
    await ui.press("enter");
    await ui.waitFor("Model for the next turn");
    await ui.type("bigger");
    await ui.press("enter");
    await ui.waitFor("⇄ model for the next turn: bigger-model");
    await ui.waitFor(/bigger-model via openai/);
    await ui.type("again");
    await ui.press("enter");
    await ui.waitFor("from the bigger one");
    const lines = await untilJournal(rig.home, (l) => l.filter((e) => e.type === "final").length === 2);
    expect(lines.some((e) => e.type === "model" && e.model === "bigger-model")).toBe(true);
    expect(JSON.parse(rig.model.requests.at(-1)?.rawBody ?? "{}").model).toBe("bigger-model");
  });

  it("/export to a folder that does not exist says so in words, not as Node's ENOENT", async () => {
    const rig = await startRig("openai", { script: [{ text: "an answer to export" }] });
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("hello");
    await ui.press("enter");
    await ui.waitFor("an answer to export");
    const target = join(rig.cwd, "no such folder", "out.md");
    await ui.type(`/export md "${target}"`);
    await ui.press("enter");
    const screen = await ui.waitFor("/export: ");
    expect(screen, ui.dump()).toContain(`/export: cannot open ${target}: no such file or directory`);
    expect(screen).not.toContain("ENOENT");
  });

  it("/expand takes on or off; another word is said to be wrong instead of unfolding", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "for i in range(30):\n    print('row', i)" }, { text: "printed rows" }],
    });
    const ui = open(rig, [], { rows: 50 });
    await ui.waitFor("new session");
    await ui.type("print rows");
    await ui.press("enter");
    await ui.waitFor("printed rows");
    await ui.waitFor("more lines · ctrl+o shows all");
    await ui.type("/expand maybe");
    await ui.press("enter");
    const screen = await ui.waitFor("usage: /expand [on|off]");
    expect(screen, ui.dump()).toContain("more lines · ctrl+o shows all");
    await ui.type("/expand on");
    await ui.press("enter");
    await ui.waitFor((s) => s.includes("row 15") && !s.includes("more lines · ctrl+o shows all"));
  });

  it("/undo steps back one code-running turn each time, never the same checkpoint twice, and says so once", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "open('notes.txt', 'w').write('one')" },
        { text: "wrote one" },
        { code: "open('notes.txt', 'w').write('two')" },
        { text: "wrote two" },
      ],
    });
    writeFileSync(join(rig.cwd, "notes.txt"), "zero");
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("write one");
    await ui.press("enter");
    await ui.waitFor("wrote one");
    await ui.type("write two");
    await ui.press("enter");
    await ui.waitFor("wrote two");
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("two");
    await ui.type("/undo");
    await ui.press("enter");
    await ui.waitFor("files as before turn 3");
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("one");
    await ui.type("/undo");
    await ui.press("enter");
    await ui.waitFor("files as before turn 1");
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("zero");
    // Each undo is said once, with what it put back and how to go further (the session's undo event).
    const said = (turn: number) =>
      ui.scrollback().filter((row) => row.includes(`↶ files as before turn ${turn}:`));
    expect(said(3)).toEqual([
      expect.stringMatching(
        /↶ files as before turn 3: 1 restored, 0 removed \(notes\.txt\) · \/undo again steps further back/,
      ),
    ]);
    expect(said(1)).toHaveLength(1);
  });

  it("/undo pick: none yet says so; the picker lists the checkpoints, Esc backs out, a pick puts files back", async () => {
    const rig = await startRig("openai", {
      script: [
        { text: "said hello" },
        { code: "open('notes.txt', 'w').write('one')" },
        { text: "wrote one" },
        { code: "open('notes.txt', 'w').write('two')" },
        { text: "wrote two" },
      ],
    });
    writeFileSync(join(rig.cwd, "notes.txt"), "zero");
    const ui = open(rig);
    await ui.waitFor("new session");
    // The turn's summary line: an undo while the agent works is refused.
    const ended = (answer: string) =>
      ui.waitFor((text) => /✓ \d+ model calls? /.test(text.slice(text.lastIndexOf(answer))));
    await ui.type("hello");
    await ui.press("enter");
    await ended("said hello");
    await ui.type("/undo pick");
    await ui.press("enter");
    await ui.waitFor("no checkpoints yet: they are taken before each turn that runs code");
    for (const [task, answer] of [
      ["write one", "wrote one"],
      ["write two", "wrote two"],
    ]) {
      await ui.type(task as string);
      await ui.press("enter");
      await ended(answer as string);
    }
    await ui.type("/undo pick");
    await ui.press("enter");
    await ui.waitFor("Put the files back as they were before…");
    await ui.waitFor(/→ turn 4 .*1 file\(s\) changed since the previous[\s\S]*turn 2 /);
    await ui.press("escape");
    await ui.waitFor((text) => !text.includes("Put the files back"));
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("two");
    await ui.type("/undo list");
    await ui.press("enter");
    await ui.waitFor("Put the files back as they were before…");
    await ui.press("down");
    await ui.press("enter");
    await ui.waitFor("files as before turn 2");
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("zero");
    const journal = await untilJournal(rig.home, (l) => l.some((e) => e.type === "undo"));
    expect(journal.filter((e) => e.type === "undo")).toEqual([expect.objectContaining({ turn: 2 })]);
  });

  it("/resume lists this directory's sessions with title, status, age and spend, and opens one", async () => {
    const rig = await startRig("openai", {
      script: [{ text: "first session answer" }, { text: "second session answer" }],
    });
    for (const prompt of ["alpha session", "beta session"]) {
      const ui = open(rig);
      await ui.waitFor("new session");
      await ui.type(prompt);
      await ui.press("enter");
      await ui.waitFor(/✓ \d+ model calls? ·/);
      await ui.press("ctrl-d");
      await ui.waitForExit();
    }
    const ui = open(rig, ["--resume"]);
    await ui.waitFor("Resume a session of this directory");
    const picker = await ui.waitFor(/alpha session[\s\S]*(done|idle)/);
    expect(picker).toMatch(/beta session\s+(done|idle) · \d+s ago · [\d.k]+ tok/);
    await ui.type("alpha");
    await ui.press("enter");
    await ui.waitFor("first session answer", { where: "all" });
    expect(ui.allText()).not.toContain("second session answer");
    expect(sessionIds(rig.home)).toHaveLength(2);
  });

  it("ctrl+t selects a sub-agent: enter opens its transcript read-only, c cancels it", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "fan out": [
          {
            code: "r = rlm.map('wait on the item', ['slow-one', 'slow-two'], return_exceptions=True)\nprint(r)",
          },
          { text: "fan-out over" },
        ],
        "wait on the item": [{ code: "import time\nprint('child says hello', flush=True)\ntime.sleep(120)" }],
      }),
    });
    const ui = open(rig, [], { cols: 120, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("fan out");
    await ui.press("enter");
    await ui.waitFor(/slow-one running[\s\S]*slow-two running|slow-two running[\s\S]*slow-one running/);
    await ui.press("ctrl-t");
    await ui.waitFor("enter open · m message · c cancel");
    await ui.press("enter");
    await ui.waitFor("(read-only)");
    await ui.waitFor("child says hello");
    await ui.press("escape");
    await ui.waitFor((s) => !s.includes("(read-only)"));
    await ui.type("c");
    await ui.waitFor("Cancel sub-agent");
    await ui.press("enter");
    const lines = await untilJournal(rig.home, (l) =>
      l.some((e) => e.type === "child_finished" && e.status === "cancelled"),
    );
    expect(lines.filter((e) => e.type === "child_finished")).toHaveLength(1);
    await ui.press("escape");
    await ui.press("escape");
    await untilJournal(rig.home, (l) => l.some((e) => e.type === "interrupted"));
  });
});
