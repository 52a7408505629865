// Rewinding the conversation (/rewind, Esc Esc on an empty input), through the real UI and its host:
// the conversation goes back to before an earlier message, the files too if chosen, the model is told
// that the kernel did not go back, and a resumed session rebuilds the rewound conversation.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { imagesSent, TINY_PNG } from "../support/images.js";
import type { Pty } from "../support/pty.js";
import { sessionIds, untilJournal, useTui } from "../support/tui.js";

const { startRig, open } = useTui();

/** The text of every message of a chat-completions request body. */
function sentTexts(rawBody: string | undefined): string {
  const body = JSON.parse(rawBody ?? "{}") as { messages?: { content?: unknown }[] };
  return (body.messages ?? []).map((m) => JSON.stringify(m.content ?? "")).join("\n");
}

/**
 * Waits for the turn that ends with `answer` to end (its summary line after it): the answer is on screen
 * a moment before, and a rewind while the agent works is refused (Esc would interrupt it instead).
 */
async function turnEnded(ui: Pty, answer: string): Promise<void> {
  await ui.waitFor((text) => {
    const at = text.lastIndexOf(answer);
    return at >= 0 && /✓ \d+ model calls? /.test(text.slice(at));
  });
}

describe("rewind", () => {
  it("Esc Esc picks an earlier message: conversation and files go back, the model is told, resume keeps it", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "open('notes.txt', 'w').write('one')" },
        { text: "wrote one" },
        { code: "open('notes.txt', 'w').write('two')" },
        { text: "wrote two" },
        { code: "open('notes.txt', 'w').write('three')" },
        { text: "wrote three" },
        { text: "second again answered" },
        { text: "after the resume" },
      ],
    });
    const ui = open(rig, [], { cols: 110, rows: 36 });
    await ui.waitFor("new session");
    for (const [task, answer] of [
      ["first task", "wrote one"],
      ["second task", "wrote two"],
      ["third task", "wrote three"],
    ]) {
      await ui.type(task as string);
      await ui.press("enter");
      await turnEnded(ui, answer as string);
    }
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("three");

    await ui.press("escape");
    await ui.press("escape");
    await ui.waitFor("Rewind to before which message?");
    // Newest first: third, second, first.
    await ui.waitFor(/third task[\s\S]*second task[\s\S]*first task/);
    await ui.press("down");
    await ui.press("enter");
    await ui.waitFor("conversation and files");
    expect(ui.screenText()).toContain("kernel's variables cannot go back");
    await ui.press("down");
    await ui.press("enter");
    await ui.waitFor("↶ rewound to before “second task” with the files");
    await untilJournal(rig.home, (l) => l.some((e) => e.type === "undo"));
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("one");
    // The rewound turns leave the view; the message is back in the input to edit.
    await ui.waitFor(
      (s) => !s.includes("wrote two") && !s.includes("wrote three") && s.includes("wrote one"),
    );
    const journal = await untilJournal(rig.home, (l) => l.some((e) => e.type === "rewind"));
    expect(journal.find((e) => e.type === "rewind")).toMatchObject({ text: "second task", files: true });

    await ui.type(" again");
    await ui.press("enter");
    await ui.waitFor("second again answered");
    const sent = sentTexts(rig.model.requests.at(-1)?.rawBody);
    expect(sent).toContain("first task");
    expect(sent).toContain("second task again");
    expect(sent).not.toContain("third task");
    expect(sent).not.toContain("wrote three");
    expect(sent).toContain("The Python kernel cannot be rewound");

    // Resumed in a new UI (and host): the rewound conversation, not the old one.
    await ui.press("ctrl-d");
    await ui.waitForExit();
    const [id] = sessionIds(rig.home);
    const again = open(rig, ["--resume", id as string], { cols: 110, rows: 36 });
    await again.waitFor("second again answered", { where: "all" });
    expect(again.allText()).not.toContain("wrote three");
    await again.type("one more");
    await again.press("enter");
    await again.waitFor("after the resume");
    const resumed = sentTexts(rig.model.requests.at(-1)?.rawBody);
    expect(resumed).toContain("second task again");
    expect(resumed).not.toContain("third task");
  });

  it("/rewind N conversation in one terminal rewinds the view of another attached to the session", async () => {
    const rig = await startRig("openai", {
      script: [{ text: "answer one" }, { text: "answer two" }, { text: "answer again" }],
    });
    const first = open(rig, [], { cols: 110, rows: 36 });
    await first.waitFor("new session");
    for (const [task, answer] of [
      ["question one", "answer one"],
      ["question two", "answer two"],
    ]) {
      await first.type(task as string);
      await first.press("enter");
      await turnEnded(first, answer as string);
    }
    const [id] = sessionIds(rig.home);
    const second = open(rig, ["attach", id as string], { cols: 110, rows: 36 });
    await second.waitFor("answer two", { where: "all" });
    await first.type("/rewind 2 conversation");
    await first.press("enter");
    await first.waitFor("↶ rewound to before “question two”");
    // The other terminal follows the session's rewind event: the rewound turn leaves its view too.
    await second.waitFor("↶ rewound to before “question two”");
    await second.waitFor((s) => !s.includes("answer two") && s.includes("answer one"));
    // No files were asked for: no undo.
    const journal = await untilJournal(rig.home, (l) => l.some((e) => e.type === "rewind"));
    expect(journal.find((e) => e.type === "rewind")).toMatchObject({ text: "question two", files: false });
    expect(journal.some((e) => e.type === "undo")).toBe(false);
    // From the other terminal, the next message continues the rewound conversation.
    await second.type("question three");
    await second.press("enter");
    await second.waitFor("answer again");
    const sent = sentTexts(rig.model.requests.at(-1)?.rawBody);
    expect(sent).toContain("question one");
    expect(sent).not.toContain("answer two");
    expect(sent).toContain("(the files were left as they are now)");
  });

  it("the picker lists only what the person typed, not a turn a Stop hook started", async () => {
    const rig = await startRig("openai", {
      script: [{ text: "answer one" }, { text: "checked again" }, { text: "answer two" }],
    });
    // A Stop hook that objects once: the agent goes back to work with its reason as a turn's text.
    const flag = join(rig.cwd, "objected");
    const config = join(rig.home, "config.json");
    const hook = `test -f '${flag}' || { touch '${flag}'; echo '{"decision":"block","reason":"check again"}'; }`;
    writeFileSync(
      config,
      JSON.stringify({
        ...JSON.parse(readFileSync(config, "utf8")),
        hooks: { Stop: [{ hooks: [{ type: "command", command: hook }] }] },
      }),
    );
    const ui = open(rig, [], { cols: 110, rows: 36 });
    await ui.waitFor("new session");
    await ui.type("question one");
    await ui.press("enter");
    await ui.waitFor("checked again");
    await ui.type("question two");
    await ui.press("enter");
    await turnEnded(ui, "answer two");
    const journal = await untilJournal(rig.home, (l) => l.filter((e) => e.type === "user").length === 3);
    expect(journal.filter((e) => e.type === "user").map((e) => [e.text, e.from])).toEqual([
      ["question one", undefined],
      ["[Stop hook] check again", "stop_hook"],
      ["question two", undefined],
    ]);
    // Both presses in one write, as a loaded machine's terminal delivers them: still Esc Esc.
    await ui.type("\x1b\x1b");
    await ui.waitFor("Rewind to before which message?");
    await ui.waitFor(/question two[\s\S]*question one/);
    // The picker's rows: the two typed messages, not the hook's turn (the transcript behind still shows it).
    const picker = ui.screenText().split("Rewind to before which message?")[1]?.split("↑↓ choose")[0];
    expect(picker).toContain("question one");
    expect(picker).not.toContain("check again");
  });

  it("a rewound message's image marker comes back into the input with its image, sent again with it", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ text: "a tiny picture" }, { text: "second answer" }, { text: "the picture again" }] },
      { config: { acceptsImages: true } },
    );
    writeFileSync(join(rig.cwd, "dot.png"), Buffer.from(TINY_PNG, "base64"));
    const ui = open(rig, [], { cols: 110, rows: 36 });
    await ui.waitFor("new session");
    await ui.paste("dot.png");
    await ui.waitFor("[image #1 dot.png]");
    await ui.type("what is this?");
    await ui.press("enter");
    await ui.waitFor("a tiny picture");
    await ui.type("second question");
    await ui.press("enter");
    await turnEnded(ui, "second answer");
    await ui.type("/rewind 1 conversation");
    await ui.press("enter");
    // Back in the input under a fresh marker, holding the image it was sent with.
    await ui.waitFor("[image #2 dot.png] what is this?");
    await ui.press("enter");
    await ui.waitFor("the picture again");
    expect(imagesSent(rig.model.requests.at(-1)?.rawBody)).toEqual([`data:image/png;base64,${TINY_PNG}`]);
    const sent = sentTexts(rig.model.requests.at(-1)?.rawBody);
    expect(sent).not.toContain("second question");
  });
});
