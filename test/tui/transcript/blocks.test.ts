// The model's streaming markdown: an answer rendered block by block as it streams (settled blocks kept,
// only the last ones rendered again) must show exactly the lines of rendering the whole text at once,
// at every point of the stream.
import { Markdown } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { makeTheme, type Theme } from "../../../src/tui/theme.js";
import { AssistantBlock } from "../../../src/tui/transcript/blocks.js";

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

describe("AssistantBlock", () => {
  for (const [name, text] of Object.entries({ REPORT, PLAIN, REFERENCES })) {
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
});
