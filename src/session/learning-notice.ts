// The one line every front end shows when learning does something (issue 21, item 5): a learning pass
// applied lessons, applied nothing, was skipped or failed (and why), a verdict judged an edit (and
// reverted, kept, promoted or retired it), a background replay check of an improved edit passed, failed or
// did not run, or a session started with lessons on probation. `relm run` stderr, line mode, the UI's
// transcript and ACP all print this text.

import { firstLine } from "../config/text.js";
import type { JournalBodyOf, JournalEventOf } from "./types.js";

/** How a front end colours the line. */
type NoticeTone = "learned" | "quiet" | "warn" | "good";

interface LearningNotice {
  text: string;
  tone: NoticeTone;
}

type Judged = JournalBodyOf<"harness_verdict">;
type Pass = JournalBodyOf<"learn">;

/** How a verdict's line is coloured: a regression warns, an improvement is good news. */
const VERDICT_TONE: Record<Judged["verdict"], NoticeTone> = {
  regressed: "warn",
  improved: "good",
  neutral: "quiet",
};

function range(numbers: readonly number[]): string {
  if (numbers.length === 0) return "";
  const from = Math.min(...numbers);
  const to = Math.max(...numbers);
  return from === to ? ` from event ${from}` : ` from events ${from}–${to}`;
}

/** A learning pass's line: what it applied, or why it applied nothing. */
function learnNotice(e: Pass): LearningNotice {
  const why = e.trigger.replace("_", " ");
  switch (e.outcome) {
    case "applied": {
      const n = e.applied.length;
      const first = e.applied[0];
      const from = range(e.applied.flatMap((a) => a.evidence));
      const what = first ? `: ${firstLine(first.content, 100)}${n > 1 ? ` (+${n - 1} more)` : ""}` : "";
      // A reply of more edits than a pass applies: how many were left for a later pass.
      // (Journals written before the field had only the reason's words.)
      const capped = e.rejected.filter((r) => r.capped ?? r.reason.includes("over the per-pass cap")).length;
      const over = capped > 0 ? `; ${capped} more skipped, over the per-pass cap` : "";
      return {
        text: `✎ learned ${n} lesson${n === 1 ? "" : "s"}${from} (${why}, revision ${e.revision ?? "?"})${what} — in force from the next request${over}`,
        tone: "learned",
      };
    }
    case "nothing_applied": {
      const reason = e.rejected[0]?.reason;
      const text =
        e.proposed === 0
          ? `✎ learning pass ${e.pass} (${why}): no lesson proposed`
          : `✎ learning pass ${e.pass} (${why}): nothing applied, ${e.proposed} proposed, none passed the checks${reason ? ` (${firstLine(reason, 80)})` : ""}`;
      return { text, tone: "quiet" };
    }
    case "skipped":
    case "failed":
      return {
        text: `✎ learning pass ${e.pass} (${why}) ${e.outcome}: ${e.reason ?? "no reason given"}`,
        tone: "warn",
      };
  }
}

/** A verdict on lessons on probation: promoted, reverted, retired, waiting, pinned, or judged so far. */
function probationNotice(e: Judged): LearningNotice {
  const ids = e.entries?.length ? e.entries.join(", ") : "?";
  const soFar = e.final || e.reverted || e.promoted || e.alreadyPromoted ? "" : " so far";
  const head = `⚖ lesson${(e.entries?.length ?? 1) === 1 ? "" : "s"} ${ids} on probation (revision ${e.rev})`;
  if (e.promoted)
    return { text: `${head} improved — promoted to the project scope as ${e.promoted}`, tone: "good" };
  if (e.alreadyPromoted)
    return {
      text: `${head} improved — already promoted to the project scope as ${e.alreadyPromoted.revision} (by ${e.alreadyPromoted.by})`,
      tone: "good",
    };
  if (e.retired) return { text: `${head} not shown to help — retired as ${e.reverted}`, tone: "quiet" };
  if (e.reverted) return { text: `${head} ${e.verdict} — reverted as ${e.reverted}`, tone: "warn" };
  const action = e.pinned
    ? " — pinned, so it stays as it is"
    : e.refused
      ? ` — not reverted: ${e.refused}`
      : e.waiting
        ? ` — stays on probation: ${e.waiting}`
        : "";
  return { text: `${head} ${e.verdict}${soFar}${action}`, tone: VERDICT_TONE[e.verdict] };
}

/** The line a session starts with when lessons learnt by earlier sessions of its project are on probation. */
function probationStartNotice(e: Pick<JournalEventOf<"harness_probation">, "entries">): LearningNotice {
  const n = e.entries.length;
  return {
    text: `✎ starting with ${n} lesson${n === 1 ? "" : "s"} on probation from earlier sessions — relm harness list --scope probation`,
    tone: "learned",
  };
}

/** A verdict's line: whether the edit helped, and what was done about it. */
function verdictNotice(e: Judged): LearningNotice {
  if (e.scope === "probation") return probationNotice(e);
  // A revert is final whatever the window says; a verdict left standing may still change.
  const soFar = e.final || e.reverted ? "" : " so far";
  const action = e.reverted
    ? ` — reverted as ${e.reverted}`
    : e.refused
      ? ` — not reverted: ${e.refused}`
      : e.verdict === "improved"
        ? " — kept"
        : "";
  return {
    text: `⚖ harness edit ${e.rev} (${e.scope}) ${e.verdict}${soFar}${action}`,
    tone: VERDICT_TONE[e.verdict],
  };
}

type Verified = JournalBodyOf<"harness_verify">;

/** A background replay check's line: passed or failed (with how), could not run, or was not started. */
function verifyNotice(e: Verified): LearningNotice {
  const what = `⚖ replay check of harness edit ${e.rev} (${e.scope})`;
  const detail = firstLine(e.summary.replace(/^verify (passed|failed): /, ""), 140);
  switch (e.outcome) {
    case "passed":
      return { text: `${what} passed: ${detail}`, tone: "good" };
    case "failed":
      return { text: `${what} failed: ${detail}`, tone: "warn" };
    case "error":
      return { text: `${what} could not run (no check): ${detail}`, tone: "warn" };
    case "skipped":
      return { text: `${what} not run: ${detail}`, tone: "quiet" };
  }
}

/** The notice for a journal event, when it is one learning writes. */
export function learningNotice(event: { type: string }): LearningNotice | undefined {
  if (event.type === "learn") return learnNotice(event as JournalEventOf<"learn">);
  if (event.type === "harness_verdict") return verdictNotice(event as JournalEventOf<"harness_verdict">);
  if (event.type === "harness_verify") return verifyNotice(event as JournalEventOf<"harness_verify">);
  if (event.type === "harness_probation")
    return probationStartNotice(event as JournalEventOf<"harness_probation">);
  return undefined;
}
