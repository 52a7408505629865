// The units a verdict compares, cut from one session's trace for one edit: attempts at a passing gate run
// (with gates) or cells (without). Each unit lies wholly on one side of the edit — the prompt in force
// throughout either had it or did not — so a prompt change in the middle of a task splits the attempt.

import type { WindowUnit } from "../store/index.js";
import { gateSignature, type SessionTrace } from "./verdict-journal.js";

/** Whether a prompt had the edit in force ("with"), had the state before it ("without"), or neither. */
export type Side = "with" | "without" | "neither";

export interface Unit extends WindowUnit {
  side: Side;
}

interface CellUnit extends Unit {
  /** The cell (or the reply that ran it) used an entry of the edit. */
  used: boolean;
}

interface UnitOptions {
  side: (prompt: string) => Side;
  /** The error signatures the edit targeted (from its evidence). */
  targeted: ReadonlySet<string>;
}

/**
 * Attempts: from a task's first message (or the passing gate run before, or the prompt change that put
 * the edit in or out of force) to the gate run that passed (ok) or to where the attempt was given up: the
 * autonomous run ended, a new task began, or the prompt changed sides. Only attempts with a gate run
 * count; one still open at the end of the journal is left out (it may yet pass).
 */
export function attemptsOf(trace: SessionTrace, options: UnitOptions): Unit[] {
  const out: Unit[] = [];
  let side: Side = "neither";
  let current: Unit | undefined;
  const open = (n: number, t: string): Unit => ({
    session: trace.id,
    from: n,
    to: n,
    time: t,
    ok: false,
    turns: 0,
    tokens: 0,
    gateRuns: [],
    targeted: 0,
    side,
  });
  const close = (ok: boolean) => {
    if (current && (current.gateRuns?.length ?? 0) > 0) out.push({ ...current, ok });
    current = undefined;
  };
  for (const e of trace.events) {
    if (current) current.to = Math.max(current.to, e.n);
    switch (e.k) {
      case "prompt": {
        const next = options.side(e.text);
        if (next !== side && current) {
          close(false);
          side = next;
          current = open(e.n, e.t);
        }
        side = next;
        break;
      }
      case "task":
        close(false);
        current = open(e.n, e.t);
        break;
      case "turn":
        if (current) {
          current.turns += 1;
          current.tokens += e.tokens;
        }
        break;
      case "out":
        if (current && e.error && options.targeted.has(e.error)) current.targeted += 1;
        break;
      case "gate":
        if (!current) break;
        current.gateRuns?.push({ n: e.n, passed: e.passed });
        if (e.failing && options.targeted.has(gateSignature(e.failing))) current.targeted += 1;
        if (e.passed) close(true);
        break;
      case "end":
        close(false);
        break;
      default:
        break;
    }
  }
  return out;
}

/**
 * Cells, for sessions without gates: each with whether it failed, whether it was a retry (the cell before
 * it in the same task failed), and whether it used an entry of the edit (`uses` of its code and of the
 * reply that ran it).
 */
export function cellsOf(
  trace: SessionTrace,
  options: UnitOptions & { uses: (code: string, reply: string) => boolean },
): CellUnit[] {
  const out: CellUnit[] = [];
  let side: Side = "neither";
  let reply = "";
  let turnTokens = 0;
  let pending: { n: number; t: string; code: string } | undefined;
  let lastFailed = false;
  for (const e of trace.events) {
    switch (e.k) {
      case "prompt":
        side = options.side(e.text);
        break;
      case "task":
        lastFailed = false;
        break;
      case "turn":
        reply = e.text;
        turnTokens = e.tokens;
        break;
      case "cell":
        pending = { n: e.n, t: e.t, code: e.code };
        break;
      case "out": {
        if (!pending) break;
        out.push({
          session: trace.id,
          from: pending.n,
          to: e.n,
          time: pending.t,
          ok: !e.failed,
          turns: 1,
          tokens: turnTokens,
          targeted: e.error && options.targeted.has(e.error) ? 1 : 0,
          retry: lastFailed,
          side,
          used: options.uses(pending.code, reply),
        });
        lastFailed = e.failed;
        pending = undefined;
        break;
      }
      default:
        break;
    }
  }
  return out;
}
