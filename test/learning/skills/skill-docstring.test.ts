import { describe, expect, it } from "vitest";
import { parseDocstring } from "../../../src/learning/skills/skill-docstring.js";

describe("the refine model's docstring", () => {
  it("is taken as plain text, out of a code fence or quotes", () => {
    const doc = "Counts words in path.\n\nArgs:\n    path: the file.";
    expect(parseDocstring(doc, ["path"])).toEqual({ text: doc });
    expect(parseDocstring(`\`\`\`python\n"""${doc}"""\n\`\`\``, ["path"])).toEqual({ text: doc });
    expect(parseDocstring(`  '''${doc}'''\n`, ["path"])).toEqual({ text: doc });
  });

  it("is refused when empty, too long, or silent about a parameter", () => {
    expect(parseDocstring(" \n", [])).toEqual({ error: "it answered with no text" });
    expect(parseDocstring("x".repeat(2001), [])).toEqual({
      error: "its answer is 2001 characters (at most 2000)",
    });
    expect(parseDocstring("Counts the words of a file (its path).", ["path", "out_path"])).toEqual({
      error: "its docstring does not mention out_path",
    });
  });
});
