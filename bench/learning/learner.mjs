// The scripted learner: a stand-in model that behaves like one that can learn, so the bench measures the
// harness's mechanics honestly. It decides every answer from the request it is sent, nothing else:
//
// - Agent turn after a cell ran: "Done." (ends the turn; autonomous mode then runs the gate).
// - Agent turn otherwise: one cell. It writes the trap's right solution when the convention is stated
//   in its request outside the gate's own failure messages (a lesson: in the system prompt, or a note
//   or any other message relm added), or when the gate's revealing message has been in its context
//   `stubborn` times; else it repeats the plain (wrong) solution. A *wrong* lesson in the request
//   (the injected bad lessons) makes it trust the gate less: it then needs `stubborn + doubt` messages.
// - Refine request (a learning pass or `relm refine`): one memory quoting the last line of the failing
//   gate's output (where every gate of the bench states its convention), citing those gate runs —
//   unless the current entries already say it. No convention is known to it in advance.
// - Compaction summary: a short fixed summary.
//
// Control tasks are solved the plain way at once: a scripted learner cannot be misled by a lesson, so
// its control regressions are zero by construction (a real model's are the measurement).
import { whoAsks } from "../../dist/scripted/index.js";

export const GATE_HEAD = "[relm: autonomous mode] The work is not done yet:";
const GATE_BLOCK =
  /\[relm: autonomous mode\] The work is not done yet:[\s\S]*?Fix the cause, then finish again\./g;

const isRefine = (raw) => raw.includes("Propose harness edits for session");
// The refine model's relevance check (src/learning/refine/refine-relevance.ts) that follows a refine call.
const isRelevanceCheck = (raw) => raw.includes("You check the evidence of proposed harness edits");

/**
 * Answers a relevance check as a careful reader would: an edit is supported when its quote is found in
 * the cited events' text (whitespace aside).
 */
function relevance(prompt) {
  const squash = (t) => t.replace(/\s+/g, " ").trim();
  const blocks = prompt.split(/^## Edit \d+$/m).slice(1);
  const answers = blocks.map((b, i) => {
    const quoted = /^quoted: (.*)$/m.exec(b)?.[1] ?? "";
    const events = /\ncited events:\n([\s\S]*)$/.exec(b)?.[1] ?? "";
    // Each quote is a JSON string (refine-relevance.ts): read it as one, escaped quotes and all.
    const quotes = [...quoted.matchAll(/"(?:[^"\\]|\\.)*"/g)].map((m) => squash(JSON.parse(m[0])));
    const found = (quotes.length > 0 ? quotes : [squash(quoted)]).every(
      (q) => q && squash(events).includes(q),
    );
    return {
      edit: i + 1,
      supports: found ? "yes" : "no",
      why: found ? "the quote is in the cited event" : "not found in the cited events",
    };
  });
  return { text: JSON.stringify(answers) };
}
const isSummary = (raw) => raw.includes("You summarise the earlier part");

/** Text of a message's content (a string or a list of parts). */
function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("\n");
}

/** What relm told the model in this request: the system prompt and every user message, in order. */
export function toldText(body) {
  const parts = [];
  if (typeof body?.system === "string") parts.push(body.system);
  else if (Array.isArray(body?.system)) parts.push(textOf(body.system));
  for (const m of body?.messages ?? [])
    if (m.role === "system" || m.role === "user") parts.push(textOf(m.content));
  return parts.join("\n");
}

/** What the request says about a convention outside the gate's failure messages (`key` found there). */
export function lessonInRequest(body, key) {
  return toldText(body).replace(GATE_BLOCK, "").includes(key);
}

/** How many of the gate's failure messages in the request state the convention. */
export function revealsInRequest(body, key) {
  return (toldText(body).match(GATE_BLOCK) ?? []).filter((b) => b.includes(key)).length;
}

/**
 * The scripted model's step function. `tasks` maps a model name (one per track, so tracks can run at
 * once) to a map from a task's text to what the learner knows of it: `{kind: "trap", key, bad, naive,
 * right}` (Python code) or `{kind: "control", solve}`.
 */
export function makeLearner({ tasks, stubborn = 3, doubt = 3 }) {
  return (ctx) => {
    if (isRelevanceCheck(ctx.rawBody)) return relevance(ctx.lastUserText ?? "");
    if (isRefine(ctx.rawBody)) return refine(ctx.lastUserText ?? "");
    if (isSummary(ctx.rawBody))
      return { text: "## Goal\nThe task above.\n## Progress so far\nTried; the gate has the last word." };
    const { task } = whoAsks(ctx);
    const mine = tasks.get(ctx.body?.model) ?? new Map();
    const known = [...mine.entries()].find(([text]) => task.includes(text))?.[1];
    if (!known) return { text: `I have no script for this task: ${task.slice(0, 80)}` };
    const last = ctx.body?.messages?.at(-1);
    if (last?.role === "tool") return { text: "Done." };
    if (known.kind === "control") return { code: known.solve };
    const lesson = lessonInRequest(ctx.body, known.key);
    const misled = toldText(ctx.body).replace(GATE_BLOCK, "").includes(known.bad);
    const seen = revealsInRequest(ctx.body, known.key);
    const right = lesson || seen >= (misled ? stubborn + doubt : stubborn);
    return { code: right ? known.right : known.naive };
  };
}

/** Gate failures in a refine prompt's trajectory: event number and the failing output's last line. */
export function gateFailures(prompt) {
  const out = [];
  const lines = prompt.split("\n");
  for (let k = 0; k < lines.length; k++) {
    const m = /^\[(\d+)\] gates failed: /.exec(lines[k]);
    if (!m) continue;
    let last = "";
    for (let j = k + 1; j < lines.length && lines[j].startsWith("    "); j++) {
      if (lines[j].trim()) last = lines[j].trim();
    }
    if (last) out.push({ n: Number(m[1]), last });
  }
  return out;
}

function refine(prompt) {
  const failures = gateFailures(prompt);
  const reveal = failures.at(-1)?.last;
  if (!reveal || reveal.length < 8) return { text: "[]" };
  const entries = prompt.slice(prompt.indexOf("# Current harness entries"), prompt.indexOf("# Trajectory"));
  if (entries.includes(reveal)) return { text: "[]" };
  const evidence = failures.filter((f) => f.last === reveal).map((f) => f.n);
  const edit = {
    op: "add",
    kind: "memory",
    title: "project convention",
    content: `Project convention, from a failing gate: ${reveal}`,
    evidence,
    quote: reveal,
    reason: `the gate failed ${evidence.length} time(s) saying so`,
    hypothesis: "the gate stops failing this way",
  };
  return { text: JSON.stringify([edit]) };
}
