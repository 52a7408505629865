// What one frame of a streaming answer costs the terminal UI's AssistantBlock (src/tui/transcript/
// blocks.ts) as the answer grows, in-process with no terminal: after the answer reaches each size, 40
// frames of `append("word ")` + `render(120)`, their median. A settled block is rendered once, so an
// answer of many blocks costs the same per frame at any size; one block that never settles (one
// paragraph, one fenced code block) is rendered whole on every frame. Run after `npm run build`:
//
//   node bench/tui-frame.mjs [paragraph|code|prose]...
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { median, ROOT } from "./lib.mjs";

const { AssistantBlock } = await import(pathToFileURL(join(ROOT, "dist/tui/transcript/blocks.js")).href);
const { makeTheme } = await import(pathToFileURL(join(ROOT, "dist/tui/theme.js")).href);
const theme = makeTheme({ TERM: "xterm-256color" });
const sentence = "The renderer keeps the lines it has drawn while the text grows longer and longer. ";
const SHAPES = {
  paragraph: { start: "", piece: (i) => `${sentence}(${i}) ` },
  code: {
    start: "Here it is:\n\n```python\n",
    piece: (i) => `x_${i} = compute(${i}, "${sentence.slice(0, 40)}")\n`,
  },
  prose: { start: "", piece: (i) => `Paragraph ${i}. ${sentence.repeat(4)}\n\n` },
};
const shapes = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(SHAPES);
for (const name of shapes) {
  const shape = SHAPES[name];
  if (!shape) throw new Error(`unknown shape ${name}: ${Object.keys(SHAPES).join(", ")}`);
  const block = new AssistantBlock(theme);
  block.append(shape.start);
  let size = 0;
  let i = 0;
  const row = [];
  for (const kb of [25, 50, 100, 200]) {
    while (size < kb * 1024) {
      const piece = shape.piece(i++);
      block.append(piece);
      size += piece.length;
    }
    block.render(120);
    const times = [];
    for (let k = 0; k < 40; k++) {
      const t0 = performance.now();
      block.append("word ");
      block.render(120);
      times.push(performance.now() - t0);
    }
    row.push(`${kb} KB ${median(times).toFixed(1)} ms`);
  }
  console.log(`${name.padEnd(9)} ${row.join(" · ")}`);
}
