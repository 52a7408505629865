import type { Edit, Entry, Revision } from "./types.js";

function indent(mark: string, text: string): string[] {
  return text.split("\n").map((l) => `${mark}   ${l}`);
}

/** A line diff of two texts: common head and tail kept, the middle shown as removed then added. */
export function diffLines(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  return [
    ...a.slice(0, head).map((l) => `    ${l}`),
    ...a.slice(head, a.length - tail).map((l) => `-   ${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+   ${l}`),
    ...a.slice(a.length - tail).map((l) => `    ${l}`),
  ];
}

function label(e: Entry): string {
  return `${e.kind} ${e.id}${e.title ? ` "${e.title}"` : ""}`;
}

/** One edit as a person reviews it: what it adds, changes or removes, and why. */
function formatEdit(edit: Edit): string {
  const lines: string[] = [];
  if (edit.op === "add" && edit.after) {
    lines.push(`+ add ${label(edit.after)}`, ...indent("+", edit.after.content));
    if (edit.after.code !== undefined)
      lines.push(`+   [Python package: ${edit.after.code.split("\n").length} lines]`);
  } else if (edit.op === "remove" && edit.before) {
    lines.push(`- remove ${label(edit.before)}`, ...indent("-", edit.before.content));
  } else if (edit.before && edit.after) {
    lines.push(`~ update ${label(edit.after)}`);
    if (edit.before.title !== edit.after.title)
      lines.push(`-   title: ${edit.before.title}`, `+   title: ${edit.after.title}`);
    lines.push(...diffLines(edit.before.content, edit.after.content));
    if ((edit.before.code ?? "") !== (edit.after.code ?? "")) {
      lines.push(...diffLines(edit.before.code ?? "", edit.after.code ?? "").map((l) => `  ${l}`));
    }
  }
  const why: string[] = [];
  if (edit.evidence && edit.evidence.length > 0) why.push(`evidence: events ${edit.evidence.join(", ")}`);
  if (edit.reason) why.push(edit.reason);
  if (why.length > 0) lines.push(`    (${why.join("; ")})`);
  if (edit.hypothesis) lines.push(`    hypothesis: ${edit.hypothesis}`);
  return lines.join("\n");
}

export function formatEdits(edits: readonly Edit[]): string {
  return edits.map(formatEdit).join("\n");
}

/** The one-line summary `relm harness log` prints. */
export function revisionSummary(r: Revision): string {
  const counts = new Map<string, number>();
  for (const e of r.edits) counts.set(e.op, (counts.get(e.op) ?? 0) + 1);
  const what = [...counts].map(([op, n]) => `${n} ${op}`).join(", ");
  return `${r.rev}  #${r.seq}  ${r.time.slice(0, 19).replace("T", " ")}  ${r.author}  ${what}  ${r.reason}`;
}

/** A revision in full: who, when, why, evidence, and every edit with before and after. */
export function formatRevision(r: Revision): string {
  const lines = [
    `revision ${r.rev} (#${r.seq}, parent ${r.parent ?? "none"})`,
    `time:     ${r.time}`,
    `author:   ${r.author}`,
    `reason:   ${r.reason}`,
  ];
  if (r.revert) lines.push(`reverts:  ${r.revert}`);
  if (r.verdict) {
    const v = r.verdict;
    lines.push(
      `verdict:  ${v.verdict} (${v.rev} in the ${v.scope} scope${v.session ? ` of session ${v.session}` : ""})`,
    );
    lines.push(`          ${v.evidence}`);
    if (v.verify) lines.push(`verify:   ${v.verify.summary} (${v.verify.time})`);
  }
  if (r.evidence)
    lines.push(`evidence: session ${r.evidence.session}, events ${r.evidence.events.join(", ")}`);
  if (r.trajectory) {
    lines.push(`reviewed: session ${r.trajectory.session}, events ${r.trajectory.from}–${r.trajectory.to}`);
  }
  lines.push("");
  for (const e of r.edits) {
    lines.push(`${e.op} ${e.id}`);
    lines.push(`  before: ${e.before ? JSON.stringify(e.before) : "(none)"}`);
    lines.push(`  after:  ${e.after ? JSON.stringify(e.after) : "(none)"}`);
    if (e.evidence?.length) lines.push(`  evidence: events ${e.evidence.join(", ")}`);
    if (e.reason) lines.push(`  reason: ${e.reason}`);
    if (e.hypothesis) lines.push(`  hypothesis: ${e.hypothesis}`);
  }
  return lines.join("\n");
}
