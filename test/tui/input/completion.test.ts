// The input's completion in-process, with pi-tui's real Editor: keys that arrive faster than a list is
// recomputed (one read holding the text and Enter, as on a loaded machine) must send what was typed,
// not the text with its end replaced by a completion of what was typed before.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TUI } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { RelmCompletion } from "../../../src/tui/input/completion.js";
import { InputEditor } from "../../../src/tui/input/input-editor.js";
import { makeTheme } from "../../../src/tui/theme.js";

const theme = makeTheme({ NO_COLOR: "1" });
// The editor only asks its TUI to draw again; nothing here is drawn.
const tui = { requestRender() {} } as unknown as TUI;

function editorWith(commands: string[], cwd = tmpdir()) {
  const editor = new InputEditor(tui, theme.editor);
  editor.setAutocompleteProvider(
    new RelmCompletion(
      commands.map((name) => ({ name, description: `the ${name} command` })),
      cwd, // only @ completion reads the directory
    ),
  );
  const sent: string[] = [];
  editor.onSubmit = (text) => sent.push(text);
  return { editor, sent };
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setImmediate(r));
  expect(ok()).toBe(true);
};

describe("completion in the input", () => {
  it("Enter right after typing past a shown list sends the typed text", async () => {
    const { editor, sent } = editorWith(["resume", "review"]);
    for (const ch of "/re") editor.handleInput(ch);
    await until(() => editor.isShowingAutocomplete());
    // The rest and Enter in one go: the list for "/re" is still the one shown.
    for (const ch of "view src/app.ts") editor.handleInput(ch);
    editor.handleInput("\r");
    expect(sent).toEqual(["/review src/app.ts"]);
  });

  it("Tab on a list that is current still completes", async () => {
    const { editor } = editorWith(["resume", "review"]);
    for (const ch of "/revi") editor.handleInput(ch);
    await until(() => editor.isShowingAutocomplete());
    editor.handleInput("\t");
    expect(editor.getText()).toBe("/review ");
  });

  it("@ completes a file whose path has spaces in quotes, so the message says where it ends", async () => {
    const project = mkdtempSync(join(tmpdir(), "relm-completion-"));
    try {
      mkdirSync(join(project, "my notes"));
      writeFileSync(join(project, "my notes", "week 1.md"), "x\n");
      const { editor, sent } = editorWith([], project);
      for (const ch of "read @week") editor.handleInput(ch);
      // Listing the project runs git (a process): wait on it, not on a number of ticks.
      await expect.poll(() => editor.isShowingAutocomplete(), { timeout: 10_000 }).toBe(true);
      editor.handleInput("\t");
      expect(editor.getText()).toBe('read @"my notes/week 1.md" ');
      for (const ch of "first") editor.handleInput(ch);
      editor.handleInput("\r");
      expect(sent).toEqual(['read @"my notes/week 1.md" first']);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
