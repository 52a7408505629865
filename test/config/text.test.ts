import { describe, expect, it } from "vitest";
import { firstLine, oneLine } from "../../src/config/text.js";

describe("oneLine", () => {
  it("folds every whitespace run, newlines and tabs too, into one space and trims the ends", () => {
    expect(oneLine("  a\n\n  b\tc  \r\n")).toBe("a b c");
  });

  it("cuts at max characters with the ellipsis as the last one, and leaves text that fits alone", () => {
    expect(oneLine("abcdef", 4)).toBe("abc…");
    expect(oneLine("abcd", 4)).toBe("abcd");
    expect(oneLine("ab\n cd", 5)).toBe("ab cd");
    expect(oneLine("x".repeat(500))).toBe("x".repeat(500)); // no max: never cut
  });
});

describe("firstLine", () => {
  it("keeps the first line of the trimmed text, cut at max characters with an ellipsis", () => {
    expect(firstLine("\n  first  line\nsecond", 80)).toBe("first  line");
    expect(firstLine("abcdef\nx", 4)).toBe("abc…");
    expect(firstLine("abcd", 4)).toBe("abcd");
  });

  it("drops the line's own trailing whitespace (a cell's title in an editor)", () => {
    expect(firstLine("\n\n  x = 1   \r\ny = 2", 80)).toBe("x = 1");
  });
});
