// The highlighter is loaded after the first paint: until then code is plain, afterwards coloured.
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import {
  ensureHighlighter,
  highlightCell,
  highlightLines,
} from "../../../src/tui/transcript/highlight-lazy.js";

const ESC = "\x1b[";

describe("the lazily loaded highlighter", () => {
  it("shows code plain before it is loaded and highlighted after, line for line", async () => {
    const code = "def f(x):\n    return x + 1";
    expect(highlightCell(code)).toEqual(code.split("\n"));
    expect(highlightLines("let a = 1;", "ts")).toEqual(["let a = 1;"]);
    await ensureHighlighter();
    const cell = highlightCell(code);
    expect(cell).toHaveLength(2);
    expect(cell[0]).toContain(ESC);
    expect(stripVTControlCharacters(cell.join("\n"))).toBe(code);
    expect(highlightLines("let a = 1;", "ts")[0]).toContain(ESC);
    // A language it does not know stays plain.
    expect(highlightLines("x := 1", "nosuchlang")).toEqual(["x := 1"]);
  });

  it("loads once: later calls share the same promise", () => {
    expect(ensureHighlighter()).toBe(ensureHighlighter());
  });
});
