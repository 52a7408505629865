// The lines of the journal events that the terminal UI's transcript and line mode (relm run's progress,
// logs, attach) word alike, each part painted by its tone in the front end's own colours (the UI's theme,
// line mode's ANSI codes or none). What one front end says its own way (a turn's end, a truncated answer,
// a rewind…) stays with it.
import type { AgentEvent } from "../agent/core/events.js";
import { formatDuration } from "../config/duration.js";
import { learningNotice } from "../session/learning-notice.js";
import { modeLines } from "./mode.js";
import type { Paint } from "./types.js";

/** A learning notice's tone in the front ends' words. */
const LEARNING_TONE = { learned: "accent", quiet: "dim", warn: "warn", good: "ok" } as const;

/** The lines `event` shows as, or undefined when it shows as none here. */
export function eventLines(event: AgentEvent, paint: Paint): string[] | undefined {
  const one = (tone: keyof Paint, text: string) => [paint[tone](text)];
  switch (event.type) {
    case "model_retry":
      return one(
        "warn",
        `↻ model call failed (${event.reason}); retry ${event.attempt} in ${formatDuration(event.delayMs)}`,
      );
    case "model_error":
      return one("error", `✗ model error: ${event.message}`);
    case "tool_error":
    case "error":
      return one("error", `✗ ${event.message}`);
    case "budget_stop":
      return one("error", `■ ${event.message}`);
    case "warning":
      return one("warn", `⚠ ${event.message}`);
    case "interrupted":
      return one("warn", `■ ${event.reason}`);
    case "kernel":
      return event.event === "started" ? undefined : one("warn", `⚠ kernel ${event.event}: ${event.detail}`);
    case "mcp":
      return event.event === "failed" ? one("warn", `⚠ ${event.detail.split("\n")[0]}`) : undefined;
    case "checkpoint":
      return event.warning ? one("warn", `⚠ ${event.warning}`) : undefined;
    case "goal":
      return one("accent", `◎ goal: ${event.text}`);
    case "goal_progress":
      return one("dim", `◎ progress: ${event.text}`);
    case "goal_paused":
      return one("warn", `◎ goal paused: ${event.reason}`);
    case "compaction":
      return one(
        "dim",
        `⇊ compacted ${event.summarized} messages: about ${event.tokensBefore} → ${event.tokensAfter} tokens`,
      );
    case "gate_run":
      return event.results.map((r) => {
        const mark = r.passed
          ? paint.ok("✓ gate")
          : paint.error(`✗ gate (exit ${r.exitCode ?? "none"}${r.timedOut ? ", timed out" : ""})`);
        return `${mark} ${r.command} ${paint.dim(formatDuration(r.durationMs))}`;
      });
    case "mode":
      return modeLines({ ...event, changed: true }).map((line) => paint[line.tone](line.text));
    case "learn":
    case "harness_verdict":
    case "harness_verify":
    case "harness_probation": {
      const notice = learningNotice(event);
      return notice ? one(LEARNING_TONE[notice.tone], notice.text) : undefined;
    }
    default:
      return undefined;
  }
}
