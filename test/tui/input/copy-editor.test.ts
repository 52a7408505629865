// /copy puts the last answer on the clipboard through the terminal (OSC 52); ctrl+g edits the input in
// $EDITOR and the UI takes the terminal back.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

describe("/copy and ctrl+g in the terminal UI", () => {
  it("/copy sends the last answer as OSC 52; ctrl+g puts what $EDITOR saved into the input", async () => {
    const rig = await startRig("openai", {
      script: [{ text: "the answer\nover two lines" }, (ctx) => ({ text: `got: ${ctx.lastUserText ?? ""}` })],
    });
    // An "editor" that rewrites the file it is given, after checking it got the input's text.
    const editor = join(rig.cwd, "fake-editor.sh");
    writeFileSync(
      editor,
      '#!/bin/sh\ngrep -q "draft words" "$1" || exit 7\nprintf "rewritten in the editor\\n" > "$1"\n',
    );
    chmodSync(editor, 0o755);
    const ui = open(rig, [], { env: { ...rig.env, EDITOR: editor, VISUAL: "" } });
    await ui.waitFor("new session");
    await ui.type("/copy");
    await ui.press("enter");
    await ui.waitFor("no answer to copy yet");
    await ui.type("hello");
    await ui.press("enter");
    await ui.waitFor(/✓ 1 model call/);
    await ui.type("/copy");
    await ui.press("enter");
    await ui.waitFor("✓ copied the last answer (2 lines");
    const base64 = Buffer.from("the answer\nover two lines").toString("base64");
    expect(ui.output()).toContain(`\x1b]52;c;${base64}\x07`);

    await ui.type("draft words");
    await ui.press("ctrl-g");
    await ui.waitFor((s) => s.includes("rewritten in the editor") && !s.includes("draft words"));
    await ui.press("enter");
    await ui.waitFor("got: rewritten in the editor");
  });
});
