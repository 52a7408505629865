import { describe, expect, it } from "vitest";
import { firstLine, oneLine, terminalText } from "../../src/config/text.js";

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

describe("terminalText", () => {
  it("leaves text, tabs, newlines and emoji as they are", () => {
    expect(terminalText("a\tb\nc 👩‍💻 é")).toBe("a\tb\nc 👩‍💻 é");
  });

  it("leaves out what would move the cursor, blank a line, retitle the window or set the clipboard", () => {
    expect(terminalText("rm -rf ~\r\u001b[2Kls")).toBe("rm -rf ~ls");
    expect(terminalText("\u001b[31mred\u001b[0m")).toBe("red");
    expect(terminalText("a\u001b]52;c;ZWNobyBoaQ==\u0007b")).toBe("ab");
    expect(terminalText("a\u001b]0;title\u001b\\b")).toBe("ab");
    expect(terminalText("a\u009b2Jb\u009d0;t\u009cc")).toBe("abc");
    expect(terminalText("reset\u001bc, charset\u001b(B, del\u007f, bell\u0007")).toBe(
      "reset, charset, del, bell",
    );
  });

  it("keeps the text after an escape that never ends, and shows bidi controls as escapes", () => {
    expect(terminalText("x\u001b]unterminated rest")).toBe("xunterminated rest");
    expect(terminalText('if user == "admin\u202e \u2066// ok\u2069"')).toBe(
      'if user == "admin\\u202e \\u2066// ok\\u2069"',
    );
  });
});
