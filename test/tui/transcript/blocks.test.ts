// The model's streaming markdown: an answer rendered block by block as it streams (settled blocks kept,
// only the last ones rendered again) must show exactly the lines of rendering the whole text at once,
// at every point of the stream.
import { Markdown, visibleWidth } from "@mariozechner/pi-tui";
import { Lexer } from "marked";
import { afterEach, describe, expect, it, vi } from "vitest";
import { makeTheme, type Theme } from "../../../src/tui/theme.js";
import { AssistantBlock, ReferenceScan } from "../../../src/tui/transcript/blocks.js";

const REPORT = `# Findings

The run took **12 s** and used \`rlm.map\` over *eight* items; see [the log](https://example.com/log).

## Timings

| step | ms | note |
| --- | ---: | --- |
| start | 120 | cold |
| cell | 0.4 | \`x = 1\` |

- first point
- second point, with \`code\`
  - nested point

  continued inside the second item

- third point after a blank line (a loose list)

1. one
2. two

\`\`\`python
def total(xs):
    """Sum of squares."""

    return sum(x * x for x in xs)
\`\`\`

> A quote that runs
over a lazy line.

> And a second quote.

Setext heading
--------------

    indented code

    more indented code after a blank line

---

<details>raw html</details>

Closing paragraph\twith a tab.
Second line of it.
`;

const PLAIN = `Just a sentence.

Another one, then a fence that never closes:

\`\`\`bash
echo one

echo two`;

const REFERENCES = `See [the docs][docs] for more.

Some text in between.

More text.

[docs]: https://example.com/docs
`;

/** What the block showed before it settled anything: the whole text through one Markdown. */
function whole(text: string, theme: Theme, width: number): string[] {
  if (text.trim() === "") return [];
  return ["", ...new Markdown(text, 0, 0, theme.markdown).render(width)];
}

/** Deterministic delta sizes from 1 to 24 characters, like a model's stream. */
function* deltas(text: string): Generator<string> {
  let seed = 7;
  for (let i = 0; i < text.length; ) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const n = 1 + (seed % 24);
    yield text.slice(i, i + n);
    i += n;
  }
}

/** Many blocks, so that blocks settle at many points of the stream; a definition comes late. */
const LONG = `${[1, 2, 3].map((i) => REPORT.replace("# Findings", `# Findings ${i}`)).join("\n")}
Late text.\r\nWith a CRLF.

[late]: https://example.com/late
`;

describe("AssistantBlock", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  for (const [name, text] of Object.entries({ REPORT, PLAIN, REFERENCES, LONG })) {
    for (const color of [true, false]) {
      it(`streams ${name} (${color ? "colour" : "no colour"}) with the lines of the whole text`, () => {
        const theme = makeTheme(color ? { TERM: "xterm-256color" } : { NO_COLOR: "1" });
        const block = new AssistantBlock(theme);
        let sofar = "";
        for (const delta of deltas(text)) {
          block.append(delta);
          sofar += delta;
          for (const width of [100, 37]) expect(block.render(width)).toEqual(whole(sofar, theme, width));
        }
        // The final text arrives again with the model's response; a resize renders everything anew.
        block.set(text);
        block.invalidate();
        expect(block.render(61)).toEqual(whole(text, theme, 61));
      });
    }
  }

  it("starts over when the text is replaced (a retried response)", () => {
    const theme = makeTheme({ TERM: "xterm-256color" });
    const block = new AssistantBlock(theme);
    for (const delta of deltas(REPORT)) block.append(delta);
    block.set("");
    expect(block.render(80)).toEqual([]);
    block.set(PLAIN);
    expect(block.render(80)).toEqual(whole(PLAIN, theme, 80));
  });

  it("lexes a long answer a few times over in all, not once per delta (a 100 KB paragraph, a 100 KB code block)", () => {
    const theme = makeTheme({ TERM: "xterm-256color" });
    const sentence = "The renderer keeps the lines it has drawn while the text grows longer. ";
    const paragraph = `${sentence.repeat(1400)}END`;
    const code = `Here:\n\n\`\`\`python\n${"x = compute(1, 'a string in the code')\n".repeat(2500)}\`\`\`\n\nEND`;
    for (const text of [paragraph, code]) {
      let lexed = 0;
      const blockTokens = Lexer.prototype.blockTokens;
      vi.spyOn(Lexer.prototype, "blockTokens").mockImplementation(function (this: Lexer, src, ...rest) {
        lexed += src.length;
        return blockTokens.call(this, src, ...(rest as [])) as never;
      });
      const block = new AssistantBlock(theme);
      for (const delta of deltas(text)) block.append(delta);
      vi.restoreAllMocks();
      // Lexing the unsettled text on every delta was about length² / 25 characters (400 million here).
      expect(lexed).toBeLessThan(10 * text.length);
      expect(block.render(80)).toEqual(whole(text, theme, 80));
    }
  });
});

describe("AssistantBlock with a table in a narrow terminal", () => {
  const WIDE =
    "Totals:\n\n| a | b | c | d | e |\n|---|---|---|---|---|\n| 10 | 20 | 30 | 40 | 50 |\n| 11 | 21 | 31 | 41 | 51 |\n\nDone.";

  it("shows a table too wide for a grid as one record per row, never its source wrapped (13-20 columns)", () => {
    const theme = makeTheme({ NO_COLOR: "1" });
    for (let width = 13; width <= 20; width++) {
      const block = new AssistantBlock(theme);
      for (const delta of deltas(WIDE)) {
        block.append(delta);
        for (const line of block.render(width)) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
      }
      const lines = block.render(width); // no colour: the text as shown
      const text = lines.join("\n");
      // pi-tui's fallback prints the source: rows cut mid-cell, `|---|` rules, pipes at line starts.
      expect(text, text).not.toMatch(/\|---|^\|/m);
      for (const cell of ["a: 10", "e: 50", "a: 11", "e: 51"]) expect(text, text).toContain(cell);
      expect(text).toContain("Done.");
      // Streamed or given at once, and settled or not, the same lines.
      const once = new AssistantBlock(theme);
      once.set(WIDE);
      expect(once.render(width)).toEqual(lines);
    }
  });

  it("keeps the grid for a table that fits, and the block's lines are those of the whole text", () => {
    const theme = makeTheme({ NO_COLOR: "1" });
    const block = new AssistantBlock(theme);
    block.set(WIDE);
    const lines = block.render(40);
    expect(lines.join("\n")).toContain("┌────┬────┬────┬────┬────┐");
    expect(lines).toEqual(whole(WIDE, theme, 40));
  });
});

describe("ReferenceScan", () => {
  it("finds a link reference definition as /^ {0,3}\\[[^\\]]+\\]:/m does, fed in pieces", () => {
    const pattern = /^ {0,3}\[[^\]]+\]:/m;
    const alphabet = ["[", "]", ":", " ", "\n", "\r", "a", "\t", "\u2028"];
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let matched = 0;
    for (let i = 0; i < 5000; i++) {
      let text = "";
      const length = 1 + random(14);
      for (let j = 0; j < length; j++) text += alphabet[random(alphabet.length)];
      const scan = new ReferenceScan();
      let found = false;
      for (let at = 0; at < text.length; ) {
        const n = 1 + random(4);
        found = scan.push(text.slice(at, at + n));
        at += n;
      }
      expect(found, JSON.stringify(text)).toBe(pattern.test(text));
      if (found) matched++;
    }
    expect(matched).toBeGreaterThan(20); // the random texts include definitions
  });
});
