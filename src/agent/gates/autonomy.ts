import type { JournalBodyOf } from "../../session/types.js";
import { type BudgetStop, describeSpend } from "../budget/budget.js";
import { Deadline } from "../budget/deadline.js";
import type { Agent } from "../core/agent.js";
import type { TurnOutcome } from "../core/loop.js";
import { describeGateResults, runGates } from "./gates.js";
import { GateStall } from "./stall.js";

export interface AutonomySettings {
  /** Shell commands that decide when the work is done; all must exit 0. */
  gates: string[];
  gateTimeoutMs?: number;
  /** Stop (exit 4) after the same gate failed this many times in a row with the files unchanged. */
  maxGateFailures?: number;
  /** No person will answer: questions are refused and the model is told to decide. */
  unattended?: boolean;
  /** After each gate run is journaled: the host lets the root's hooks judge the work there (hooks.ts). */
  afterGateRun?: () => void | Promise<void>;
}

/** Without gates: the run pauses after this many continuations with no change, output or progress note. */
const MAX_IDLE = 3;

export type AutonomousOutcome =
  | TurnOutcome
  | { status: "gates_failing"; report: string }
  | { status: "stalled"; report: string };

/** The report every autonomous run ends with, and the final outcome. */
function end(agent: Agent, outcome: AutonomousOutcome, report: string): AutonomousOutcome {
  const word = report.startsWith("gates passed") ? "gates passed" : END_WORDS[outcome.status];
  agent.record({ type: "autonomy_end", outcome: word, report });
  return outcome;
}

/** A run a budget stopped: its report says which budget, and what was spent. */
function budgetEnd(agent: Agent, stop: BudgetStop): AutonomousOutcome {
  // The stop's message already begins "budget exhausted: --max-turns (...)".
  const report = `${stop.message}; spent ${describeSpend(stop.spent)}`;
  return end(agent, { status: "budget", stop }, report);
}

/** How the journal's `autonomy_end` names each way a run ends. */
export const END_WORDS: Record<AutonomousOutcome["status"], JournalBodyOf<"autonomy_end">["outcome"]> = {
  done: "done",
  budget: "budget exhausted",
  gates_failing: "gates still failing",
  stalled: "stalled",
  interrupted: "interrupted",
  error: "error",
};

function continuation(agent: Agent, unattended: boolean): string {
  const goal = agent.goal.text ? `Goal: ${agent.goal.text}\n` : "";
  const alone = unattended
    ? "Nobody can answer questions in this run: decide for yourself and say what you assumed. "
    : "";
  return (
    `[relm: autonomous mode] ${goal}Continue the work. ${alone}` +
    'Record real steps forward with goal.progress("..."). When the goal is achieved and checked, call done("what was done") in a cell.'
  );
}

/**
 * Autonomous mode: keeps a run going until it is really done. With gates, "done" means every gate
 * command exits 0; a failing gate's output goes back to the model, and the same gate failing again and
 * again with the files unchanged ends the run as "gates still failing". Without gates, the model is
 * prompted to continue until it calls done(), and a run that stops changing anything is paused rather
 * than left to loop. Budgets end it as "budget exhausted" (the turn loop checks them before every call).
 */
export async function runAutonomously(
  agent: Agent,
  firstMessage: string,
  settings: AutonomySettings,
  firstFrom?: string,
): Promise<AutonomousOutcome> {
  const stall = new GateStall();
  const maxFailures = settings.maxGateFailures ?? 3;
  // A done() of an earlier run (or of a turn outside autonomous mode) is not this run's: without this,
  // every later message to the session ended after one turn as "the model called done()".
  agent.goal.done = false;
  let idle = 0;
  let before = await progressMark(agent);
  let outcome = await agent.run(firstMessage, firstFrom);
  let continued = false;
  for (;;) {
    if (outcome.status === "budget") return budgetEnd(agent, outcome.stop);
    if (outcome.status !== "done")
      return end(agent, outcome, outcome.status === "error" ? outcome.message : outcome.reason);

    let next: string;
    if (settings.gates.length > 0) {
      const confined = await agent.tree.gateConfinement();
      const deadline = new Deadline(agent.budget);
      // A person's interrupt and relm stop abort the last turn's controller (agent.interrupt): between
      // turns, that is what stops the gates; without it they ran to --gate-timeout whatever was asked.
      const stopped = agent.state.abort.signal;
      const run = await runGates(settings.gates, {
        cwd: agent.tree.options.cwd,
        timeoutMs: settings.gateTimeoutMs,
        signal: AbortSignal.any([deadline.signal, stopped]),
        ...confined,
      });
      deadline.dispose();
      const fingerprint = await workspaceFingerprint(agent);
      const same = stall.record(run, fingerprint);
      const recorded = agent.record({
        type: "gate_run",
        passed: run.passed,
        results: run.results.map((r) => ({
          command: r.command,
          exitCode: r.exitCode,
          passed: r.passed,
          timedOut: r.timedOut,
          output: r.output,
          durationMs: r.durationMs,
        })),
        skipped: run.skipped,
        sameFailures: same,
      });
      await settings.afterGateRun?.();
      const described = describeGateResults(run);
      if (run.passed) return end(agent, outcome, `gates passed: ${described}`);
      if (stopped.aborted && !deadline.expired) {
        // Stopped by the person: no verdict on the work, no learning pass, no next turn.
        agent.state.interruptNextRun = false;
        const reason = agent.state.cancelled ?? "interrupted by the user";
        agent.record({ type: "interrupted", reason, spent: agent.budget.spent() });
        return end(agent, { status: "interrupted", reason }, `${reason} (while the gates ran)`);
      }
      const stop = deadline.expired ? (agent.budget.check() ?? agent.budget.timeStop()) : undefined;
      if (stop) {
        // The gates were stopped at the deadline: the work is neither done nor worth another turn.
        agent.record({ type: "budget_stop", ...stop });
        return budgetEnd(agent, stop);
      }
      if (same >= maxFailures) {
        const failure = describeGateResults(run, { failureOutput: true });
        return end(
          agent,
          { status: "gates_failing", report: failure },
          `gates still failing: the same gate failed ${same} times with no change in the files. ${failure}`,
        );
      }
      // The same failure again: a learning pass may keep the lesson before the model tries once more.
      await agent.hooks?.afterGateRun?.(run, recorded.n);
      next =
        `[relm: autonomous mode] The work is not done yet: ${describeGateResults(run, { failureOutput: true })}\n` +
        `${agent.goal.text ? `Goal: ${agent.goal.text}\n` : ""}Fix the cause, then finish again.`;
    } else {
      if (agent.goal.done) return end(agent, outcome, "done: the model called done()");
      const now = await progressMark(agent);
      const changed =
        now.fingerprint !== before.fingerprint || now.cells !== before.cells || now.notes !== before.notes;
      // The first turn is the task itself; only continuations that changed nothing count.
      idle = changed || !continued ? 0 : idle + 1;
      before = now;
      if (idle >= MAX_IDLE) {
        const reason = `no file change, no new cell output and no progress note in ${idle} continuations`;
        agent.record({ type: "goal_paused", reason });
        return end(agent, { status: "stalled", report: reason }, `stalled: the goal is paused (${reason})`);
      }
      next = continuation(agent, settings.unattended === true);
    }
    continued = true;
    outcome = await agent.run(next, "autonomy");
  }
}

/** The workspace's state as a hash, for "nothing changed" checks (null without checkpoints). */
function workspaceFingerprint(agent: Agent): Promise<string | null> {
  return agent.checkpoints?.fingerprint() ?? Promise.resolve(null);
}

/** What a continuation that did something changes: the files, the cells that printed, the progress notes. */
async function progressMark(agent: Agent) {
  const fingerprint = await workspaceFingerprint(agent);
  return { fingerprint, cells: agent.conversation.cellsRun, notes: agent.goal.progressNotes };
}
