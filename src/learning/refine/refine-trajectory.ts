import type { JournalEvent } from "../../session/types.js";

/** A session's events as the refine model reads them: numbered, shortened, within a size budget. */
export interface Trajectory {
  text: string;
  /** First and last event number of the reviewed window (0, 0 when there is nothing new). */
  from: number;
  to: number;
  /** Event numbers printed in `text`: the only ones an edit may cite. */
  shown: Set<number>;
  /** Each shown event's block as printed (after its `[n] `): what an edit's quote must be found in. */
  texts: Map<number, string>;
  /** Events of the window left out to keep within the budget. */
  omitted: number;
}

const TRAJECTORY_CHARS = 40_000;

function clip(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const half = Math.floor((chars - 40) / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} chars cut …]\n${text.slice(-half)}`;
}

function indent(text: string): string {
  return text.replace(/\n/g, "\n    ");
}

/** One event as one short block of text, or undefined for events that teach nothing (requests, retries). */
function describeEvent(e: JournalEvent): string | undefined {
  const at = `[${e.n}]`;
  switch (e.type) {
    case "user":
      return `${at} user: ${indent(clip(e.text, 2000))}`;
    case "model_response":
      return e.text.trim() ? `${at} assistant: ${indent(clip(e.text, 1500))}` : undefined;
    case "cell":
      return `${at} cell:\n    ${indent(clip(e.code, 2000))}`;
    case "cell_output": {
      const status = e.error ? `${e.status}, ${e.error.name}: ${clip(e.error.value, 200)}` : e.status;
      const note = e.note ? `\n    [relm] ${clip(e.note, 300)}` : "";
      return `${at} output (${status}):\n    ${indent(clip(e.output || "[no output]", 800))}${note}`;
    }
    case "tool_error":
      return `${at} tool error: ${clip(e.message, 500)}`;
    case "model_error":
      return `${at} model error (${e.kind}): ${clip(e.message, 500)}`;
    case "kernel":
      return e.event === "started" ? undefined : `${at} kernel ${e.event}: ${e.detail}`;
    case "variable":
      return `${at} input variable ${e.name}: ${e.varType}, ${e.size}`;
    case "child_spawned":
      return `${at} started child ${e.name}${e.spec ? ` (spec ${e.spec})` : ""}: ${clip(e.task, 500)}`;
    case "child_finished":
      return `${at} child ${e.name} ${e.status}${e.reason ? `: ${clip(e.reason, 300)}` : ""}${e.result ? ` → ${clip(e.result, 300)}` : ""}`;
    case "message":
      return `${at} message ${e.from} → ${e.to}: ${clip(e.text, 500)}`;
    case "submit":
      return `${at} submit: ${clip(JSON.stringify(e.value) ?? "", 500)}`;
    case "gate_run": {
      const ran = e.results.map((r) => {
        const how = r.passed
          ? "passed"
          : r.timedOut
            ? "timed out"
            : `failed (exit ${r.exitCode ?? "killed"})`;
        return `gate \`${r.command}\` ${how}`;
      });
      const failed = e.results.find((r) => !r.passed);
      const output = failed ? `\n    ${indent(clip(failed.output || "[no output]", 800))}` : "";
      return `${at} gates ${e.passed ? "passed" : "failed"}: ${ran.join("; ")}${output}`;
    }
    case "budget_stop":
      return `${at} budget stop: ${e.message}`;
    case "final":
      return `${at} final answer: ${indent(clip(e.text, 1500))}`;
    case "error":
      return `${at} error: ${clip(e.message, 500)}`;
    case "interrupted":
      return `${at} interrupted: ${e.reason}`;
    default:
      return undefined;
  }
}

/**
 * The events after `after`, described. When they do not fit in TRAJECTORY_CHARS, the first block (usually
 * the task) and the most recent ones are kept and the middle is marked as left out.
 */
export function collectTrajectory(events: readonly JournalEvent[], after: number): Trajectory {
  const window = events.filter((e) => e.n > after);
  const blocks = window.flatMap((e) => {
    const text = describeEvent(e);
    return text === undefined ? [] : [{ n: e.n, text }];
  });
  const from = window[0]?.n ?? 0;
  const to = window.at(-1)?.n ?? 0;
  const first = blocks[0];
  const head = first ? [first] : [];
  let kept = blocks.slice(1);
  if (blocks.reduce((sum, b) => sum + b.text.length + 1, 0) > TRAJECTORY_CHARS) {
    kept = [];
    let used = (first?.text.length ?? 0) + 100;
    for (let i = blocks.length - 1; i > 0; i--) {
      const b = blocks[i] as (typeof blocks)[number];
      if (used + b.text.length + 1 > TRAJECTORY_CHARS) break;
      kept.unshift(b);
      used += b.text.length + 1;
    }
  }
  const gapFrom = (first?.n ?? from) + 1;
  const gapTo = (kept[0]?.n ?? to + 1) - 1;
  const omitted = blocks.length - kept.length - head.length;
  const marker = omitted > 0 ? [`[events ${gapFrom}–${gapTo} left out to keep this short]`] : [];
  const all = [...head, ...kept];
  return {
    text: [...head.map((b) => b.text), ...marker, ...kept.map((b) => b.text)].join("\n"),
    from,
    to,
    shown: new Set(all.map((b) => b.n)),
    texts: textsOf(all),
    omitted,
  };
}

function textsOf(blocks: readonly { n: number; text: string }[]): Map<number, string> {
  return new Map(blocks.map((b) => [b.n, b.text.slice(`[${b.n}] `.length)]));
}
