// The journal's on-disk vocabulary. Each line of journal.jsonl is one of these, written before it is acted on.

import type { Reasoning, ToolCall, Usage } from "../llm/types.js";

export const JOURNAL_VERSION = 1;

export interface JournalHeader {
  type: "header";
  version: number;
  id: string;
  /** Session id of the parent agent, for children. */
  parent?: string;
  created: string;
  cwd: string;
  title: string;
  provider: string;
  model: string;
  relm: string;
}

export interface SpendRecord {
  turns: number;
  tokens: number;
  elapsedMs: number;
  /** USD; null when prices are unknown */
  cost: number | null;
}

/** One step of an agent's plan (plan() in the kernel). */
export interface PlanStep {
  text: string;
  status: "pending" | "doing" | "done";
}

/** An edit a learning pass applied, as its journal event lists it. */
export interface LearnedEdit {
  op: "add" | "update" | "remove";
  id: string;
  kind: string;
  /** The entry's text after the edit (before it, for a removal), cut at 300 characters. */
  content: string;
  /** What it should change in the work that follows. */
  hypothesis: string;
  evidence: number[];
}

export type JournalBody =
  /** The exact system prompt of this session (first event), reused verbatim when it is resumed. */
  | { type: "system_prompt"; text: string }
  /**
   * `images`: files (relative to the session's folder) sent with the message as image parts. `from`: who
   * started the turn when it was not the person (an autonomy continuation, a Stop hook, a scheduled job,
   * another agent); absent: the person typed it (/rewind lists only those).
   */
  | { type: "user"; text: string; images?: string[]; from?: string }
  | { type: "variable"; name: string; varType: string; size: string; preview: string }
  | { type: "kernel"; event: "started" | "died" | "restarted"; pid: number; detail: string }
  /** An MCP server this agent's call started, or that failed it (docs/mcp.md). */
  | { type: "mcp"; server: string; event: "started" | "failed"; detail: string }
  | {
      type: "model_request";
      turn: number;
      messages: number;
    }
  | { type: "model_retry"; turn: number; attempt: number; delayMs: number; reason: string }
  | {
      type: "model_response";
      turn: number;
      text: string;
      toolCalls: ToolCall[];
      /** The answer's reasoning as the provider sent it, sent back unchanged; docs/providers.md. */
      reasoning?: Reasoning;
      usage: Usage;
      cost: number | null;
      stopReason: string;
      requestBytes: number;
      attempts: number;
      durationMs: number;
    }
  | {
      type: "model_error";
      turn: number;
      kind: string;
      status?: number;
      message: string;
      /** A request stopped by a budget as it streamed (kind "budget"): its spend by the estimate. */
      usage?: Usage;
      cost?: number | null;
    }
  | { type: "cell"; turn: number; callId: string; code: string }
  | { type: "tool_error"; turn: number; callId: string; message: string }
  /** A tool call answered without running it (interrupted turn, submit() ended the run, host stopped). */
  | { type: "tool_skipped"; turn: number; callId: string; reason: string }
  /** The session continues in a new host process; what was in flight when the old one stopped. */
  | {
      type: "resumed";
      uncertain: string[];
      restored: string[];
      notRestored: { name: string; reason: string }[];
      /** The budget spent so far, carried from the journals (absent in older journals: zero then). */
      spent?: SpendRecord;
    }
  | { type: "snapshot"; saved: number; skipped: { name: string; reason: string }[]; bytes: number }
  | { type: "submit"; value: unknown }
  /** Files as they were before this turn's cells, in the shadow repository (relm undo restores them). */
  | {
      type: "checkpoint";
      turn: number;
      commit?: string;
      filesChanged?: number;
      warning?: string;
      durationMs: number;
    }
  | {
      type: "gate_run";
      passed: boolean;
      results: {
        command: string;
        exitCode: number | null;
        passed: boolean;
        timedOut: boolean;
        output: string;
        durationMs: number;
      }[];
      skipped: string[];
      /** The same gate failing with the workspace unchanged, this many times in a row. */
      sameFailures: number;
    }
  | { type: "goal"; text: string }
  /**
   * The session's permission mode was switched (`/mode`, shift+tab): its kernel restarted under it with
   * these variables restored from the snapshot (and these not).
   */
  | {
      type: "mode";
      mode: "plan" | "workspace" | "full";
      from: "plan" | "workspace" | "full";
      restored: string[];
      notRestored: { name: string; reason: string }[];
    }
  /**
   * A kernel asked for more than its permission mode allows (docs/sandbox.md, "Approvals"): one more
   * host, one command run outside the sandbox, a write outside what the mode allows, a wider mode.
   * Journaled before anyone answers (a notification may fire on it); `requester` is the asking agent.
   */
  | {
      type: "approval_request";
      id: string;
      kind: "net" | "run" | "write" | "mode";
      reason: string;
      /** Exactly what is asked, as a person is shown it: the host[:port], the command, the path, the mode. */
      subject: string;
      requester: string;
      /** The write's size in bytes (kind write). */
      bytes?: number;
    }
  /**
   * The answer to an approval_request, journaled before it is acted on: who answered (a person through
   * the terminal UI, an editor over ACP, an MCP client, line mode, `relm web`; or the policy: lists, --approve) and
   * for how long ("once", "session", "project": remembered in $RELM_HOME/approvals.json).
   */
  | {
      type: "approval_answer";
      id: string;
      allow: boolean;
      scope: "once" | "session" | "project";
      by: "ui" | "acp" | "mcp" | "line" | "web" | "policy";
      note?: string;
      /** Nobody answered: the cell that asked was interrupted first, and front ends take the question back. */
      withdrawn?: boolean;
    }
  /** The root's model was switched (UI `/model`); the model calls after it use this one. */
  | { type: "model"; model: string; provider: string }
  /**
   * A file changed by the kernel's toolkit (edit, write, apply_patch): its unified diff, cut at 40 000
   * chars. `from` is a moved file's old path. The turn's checkpoint holds the file as it was.
   */
  | {
      type: "file_edit";
      path: string;
      action: "create" | "write" | "edit" | "patch" | "delete" | "move";
      from?: string;
      added: number;
      removed: number;
      diff: string;
    }
  /** Files put back to the checkpoint before `turn` (`/undo`); `backup` holds the state just before. */
  | { type: "undo"; turn: number; changed: string[]; removed: string[]; backup?: string }
  /**
   * The conversation went back to just before the `user` event numbered `to` (/rewind): what came after
   * it is no longer sent to the model; `note` (that the kernel was not rewound) is. `files`: the person
   * asked for the files too (an `undo` event follows with what was put back).
   */
  | { type: "rewind"; to: number; text: string; files: boolean; note: string }
  | { type: "goal_progress"; text: string }
  /** The agent's task list as plan() last set it (python/relm/plan.py): shown, never acted on. */
  | { type: "plan"; steps: PlanStep[] }
  | { type: "goal_done"; note?: string }
  | { type: "goal_paused"; reason: string }
  /** Older messages were replaced by `summaryMessage`; the last `kept` messages stayed. */
  | {
      type: "compaction";
      summaryMessage: string;
      kept: number;
      summarized: number;
      tokensBefore: number;
      tokensAfter: number;
      /** The summary call's own spend (absent in journals written before it was recorded). */
      usage?: Usage;
      cost?: number | null;
    }
  /** How an autonomous run ended, in words that never claim more than was checked. */
  | {
      type: "autonomy_end";
      outcome:
        | "gates passed"
        | "done"
        | "budget exhausted"
        | "gates still failing"
        | "stalled"
        | "error"
        | "interrupted";
      report: string;
    }
  | {
      type: "child_spawned";
      id: string;
      name: string;
      task: string;
      spec?: string;
      model: string;
      /** What a person sees instead of the name: rlm.map's item preview, or rlm.spawn's name. */
      label?: string;
      variables: { name: string; type: string; size: string }[];
    }
  | {
      type: "child_finished";
      id: string;
      name: string;
      label?: string;
      status: "done" | "failed" | "cancelled";
      reason?: string;
      /** Short preview of the result handed back to the parent's code. */
      result?: string;
      spent: SpendRecord;
    }
  | { type: "message"; from: string; to: string; text: string }
  | {
      type: "llm_call";
      model: string;
      prompts: number;
      usage: Usage;
      cost: number | null;
      durationMs: number;
    }
  | {
      type: "cell_output";
      turn: number;
      callId: string;
      executionCount: number;
      status: "ok" | "error" | "timeout" | "crashed";
      /** What the model saw (capped). */
      output: string;
      outputChars: number;
      truncated: boolean;
      /** Lines of the full output, when it was truncated. */
      outputLines?: number;
      /** Relative to the session dir, when the full output was written aside. */
      fullOutputFile?: string;
      /** Relative paths of image/png files written beside the journal. */
      imageFiles: string[];
      error?: { name: string; value: string };
      /** A shell command of the cell (`!cmd`) exited with this non-zero status. */
      exitCode?: number;
      note?: string;
      durationMs: number;
    }
  /** Online refinement turned on or off for this session (--learn, /learn, learn.enabled); a resume keeps it. */
  | { type: "learn_mode"; on: boolean }
  /** One learning pass (docs/harness.md, "Learning on the fly"); its model call is the llm_call before it. */
  | {
      type: "learn";
      /** 1-based, counting every pass of the session, skipped ones too. */
      pass: number;
      trigger: "compaction" | "every_turns" | "gate_failure";
      /** applied: a revision was written; nothing_applied: the model was asked, nothing passed the checks. */
      outcome: "applied" | "nothing_applied" | "skipped" | "failed";
      /** Why it was skipped or failed. */
      reason?: string;
      model: string;
      scope: string;
      /** The journal events reviewed (null when the pass never reached the model). */
      reviewed: { from: number; to: number; omitted: number } | null;
      proposed: number;
      applied: LearnedEdit[];
      /** capped: left for a later pass by the per-pass cap (not wrong, not applied). */
      rejected: { index: number; reason: string; edit: string; capped?: true }[];
      /** The harness revision holding the applied edits. */
      revision?: string;
      /** What the pass was expected to cost at most, checked against the budgets before it started. */
      estimate?: { tokens: number; cost: number | null; durationMs: number };
      tokens: number;
      cost: number | null;
      durationMs: number;
    }
  /**
   * A lesson applied mid-session, appended to this agent's conversation as one user-role note (`text`,
   * exactly as the model read it) before its next model request; a resume replays it (docs/learning.md).
   */
  | {
      type: "lesson";
      text: string;
      /** The harness revision holding it, its scope and the entries it touched. */
      revision: string;
      scope: string;
      entries: string[];
      /** The session whose journal events it was learned from, and those events. */
      session: string;
      events: { from: number; to: number } | null;
    }
  /** A verdict on a harness edit, recorded by the host that judged it (docs/harness.md, "Verdicts"). */
  | {
      type: "harness_verdict";
      scope: string;
      /** The revision judged. */
      rev: string;
      verdict: "improved" | "regressed" | "neutral";
      /** The window after the edit is full: later work does not change it. */
      final: boolean;
      /** The windows compared, naming sessions and events. */
      summary: string;
      /** The revision that reverted the edit (a regression). */
      reverted?: string;
      /** Why a regression was not reverted. */
      refused?: string;
      /** Probation: the entries of the revision judged. */
      entries?: string[];
      /** Probation: promoted to the project scope as this revision. */
      promoted?: string;
      /** Probation: retired (the revert in `reverted`): not shown to help. */
      retired?: boolean;
      /** Probation: why an improved lesson stays on probation. */
      waiting?: string;
      /** Probation: a person pinned it, so the verdict did not act. */
      pinned?: boolean;
      /** Probation: improved, but another session's verdict or a person had promoted it first (that revision). */
      alreadyPromoted?: { revision: string; by: string };
    }
  /**
   * A replay check of an improved harness edit, run in the background by a learning session's host
   * (docs/harness.md, "Verify before promotion"); what its replays spent is the llm_call before it.
   */
  | {
      type: "harness_verify";
      scope: string;
      /** The revision checked. */
      rev: string;
      /** error: a replay could not run (no check); skipped: none was started (the budget share, say). */
      outcome: "passed" | "failed" | "error" | "skipped";
      /** The check's summary, or why it could not run or was skipped. */
      summary: string;
      tokens: number;
      cost: number | null;
      durationMs: number;
    }
  /**
   * The session started with lessons on probation: learnt by earlier sessions of the project, in its
   * prompt under their own heading until a verdict promotes or retires them (docs/harness.md, "Probation").
   */
  | { type: "harness_probation"; entries: string[] }
  | { type: "budget_stop"; budget: string; limit: number; spent: SpendRecord; message: string }
  /**
   * The model's answer stopped at its output cap (finish reason `length` / `max_tokens`): `by` says whose
   * cap it was, `action` what happened next (see docs/budgets.md).
   */
  | {
      type: "truncated";
      turn: number;
      maxOutputTokens?: number;
      by: "budget" | "model";
      action: "continued" | "stopped" | "gave_up";
    }
  | { type: "final"; text: string; spent: SpendRecord }
  /** Something the person should fix that did not stop the session (a SKILL.md left out). */
  | { type: "warning"; message: string }
  /** One run of a user's hook (docs/hooks.md): which event, which command, how it ended. */
  | {
      type: "hook";
      event: string;
      command: string;
      source: "user" | "project";
      /** null: killed, timed out or could not start. */
      exit: number | null;
      durationMs: number;
      /** It blocked what it ran before (a cell, a prompt) or asked a stopping agent to go on. */
      blocked?: boolean;
      timedOut?: boolean;
    }
  /**
   * Something the person should hear about even when away (docs/hooks.md, "Notifications"): the work
   * finished or failed, a budget stopped it, an approval waits. Emitted by the session host; an attached
   * terminal UI shows it as the terminal's notification, the Notification hook always runs.
   */
  | { type: "notification"; kind: "done" | "failed" | "approval" | "budget"; text: string }
  | { type: "error"; message: string }
  /** `spent`: the session's budget when it stopped, as `final` carries it (absent in older journals). */
  | { type: "interrupted"; reason: string; spent?: SpendRecord };

export type JournalEvent = JournalBody & {
  /** 1-based sequence number within the journal (the header is 0). */
  n: number;
  /** ISO time it was written. */
  t: string;
};

type JournalEventType = JournalBody["type"];

/** The body of one type, e.g. `JournalBodyOf<"lesson">`. */
export type JournalBodyOf<T extends JournalEventType> = Extract<JournalBody, { type: T }>;

/** The event of one type, e.g. `JournalEventOf<"cell_output">`. */
export type JournalEventOf<T extends JournalEventType> = Extract<JournalEvent, { type: T }>;
