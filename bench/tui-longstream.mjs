// A long answer streamed as fast as the scripted model can write it (no delay between its 16-character
// chunks): how long the UI takes from the first part on screen until the end of the answer is on screen,
// beside the session host's own time for the same stream (its journal), and whether Esc in the middle
// of it is honoured. Run after `npm run build`:
//
//   node bench/tui-longstream.mjs [KB=200] [shape=prose|paragraph|code|list]
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./lib.mjs";
import { f1, rig as makeRig, sampleProcess, timeUntil } from "./tui-lib.mjs";

const KB = Number(process.argv[2] ?? 200);
const SHAPE = process.argv[3] ?? "prose";
const scripted = await import(pathToFileURL(join(ROOT, "dist/scripted/index.js")).href);

/** About KB kilobytes of markdown in one of four shapes, ending in a marker. */
function answer() {
  const sentence = "The renderer keeps the lines it has drawn while the text grows longer and longer. ";
  const out = [];
  let size = 0;
  for (let i = 1; size < KB * 1024; i++) {
    const piece =
      SHAPE === "paragraph"
        ? `${sentence}(${i}) `
        : SHAPE === "code"
          ? `x_${i} = compute(${i}, "${sentence.slice(0, 40)}")\n`
          : SHAPE === "list"
            ? `- item ${i}: ${sentence}\n`
            : `Paragraph ${i}. ${sentence.repeat(4)}\n\n`;
    out.push(piece);
    size += piece.length;
  }
  const body = out.join("");
  if (SHAPE === "code") return `Here it is:\n\n\`\`\`python\n${body}\`\`\`\n\nSTREAM-END-MARKER`;
  return `${body}\n\nSTREAM-END-MARKER`;
}

const TEXT = answer();
const r = await makeRig(scripted.startScriptedModel, [{ text: TEXT }]);
try {
  const p = r.open();
  await timeUntil(p, (t) => t.includes("new session"), performance.now(), 60_000);
  const cpu = sampleProcess(p.pid);
  const from = performance.now();
  p.proc.write("write the long answer\r");
  await timeUntil(p, (t) => t.includes("STREAM-END-MARKER") && t.includes("✓"), from, 600_000);
  const ms = performance.now() - from;
  cpu.stop();
  const use = cpu.between(from, from + ms);
  const id = readdirSync(join(r.home, "sessions"))[0];
  const journal = readFileSync(join(r.home, "sessions", id, "journal.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const user = journal.find((e) => e.type === "user");
  const done = journal.find((e) => e.type === "model_response");
  const hostMs = done && user ? Date.parse(done.t) - Date.parse(user.t) : Number.NaN;
  console.log(
    `${SHAPE} ${f1(TEXT.length / 1024)} KB: on screen after ${f1(ms / 1000)} s (host streamed it in ${f1(hostMs / 1000)} s); UI ${f1(use.cpu)}% of a core, peak RSS ${f1(use.peakRssMb)} MB`,
  );
} finally {
  await r.close();
}
