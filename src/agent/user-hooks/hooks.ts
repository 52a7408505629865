// The user's hooks at the points of a session (docs/hooks.md): which commands an event runs (by its
// matcher), with what JSON on stdin, where (a sandboxed session's project hooks in its sandbox, the
// user's own on the host), and what their answers mean: exit 2, or `{"decision": "block", "reason"}` on
// stdout, blocks what can be blocked (a cell, a prompt) or asks a stopping agent to go on; any other
// failure is a notice. Each run is journaled as a `hook` event. Nothing here throws into the session.

import type { HookCommand, HookEventName } from "../../config/hooks.js";
import type { SpawnCommand } from "../../kernel/sandbox/types.js";
import type { JournalBody } from "../../session/types.js";
import { type HookRun, runHookCommand } from "./run.js";

/** Where untrusted hooks run: the session's sandbox (wrap) and the kernels' environment; undefined: on the host. */
type HookConfinement = () => Promise<
  { wrap: (command: SpawnCommand) => SpawnCommand; env: NodeJS.ProcessEnv } | undefined
>;

interface UserHooksOptions {
  readonly commands: readonly HookCommand[];
  readonly cwd: string;
  /** The environment trusted hooks run with (the user's). */
  readonly env: NodeJS.ProcessEnv;
  /** The session's sandbox, for project hooks (the user's own are trusted and run on the host). */
  readonly confinement: HookConfinement;
}

/** Who fires an event: the session (root) and the agent whose journal gets the `hook` events. */
export interface HookOrigin {
  readonly sessionId: string;
  readonly transcriptPath: string;
  /** The agent the event is about, when it is not the root. */
  readonly agentId?: string;
  record(body: JournalBody): unknown;
}

/** What the hooks of one event decided, together. */
interface HookVerdict {
  /** Set when a hook blocked (exit 2 or decision "block"): its reason, for the model. */
  readonly blocked?: string;
  /** Text hooks printed for the model (UserPromptSubmit, SessionStart: plain stdout or additionalContext). */
  readonly context?: string;
}

/** How many characters of a hook's stderr a notice quotes. */
const NOTICE_CHARS = 400;

export class UserHooks {
  constructor(private readonly options: UserHooksOptions) {}

  /** Whether any hook listens for `event` (callers skip building its input otherwise). */
  has(event: HookEventName): boolean {
    return this.options.commands.some((c) => c.event === event);
  }

  /**
   * Runs the hooks of `event` whose matcher matches `subject` (the tool name, notification kind…), one
   * after another in the order configured; `fields` join the common ones on stdin.
   */
  async fire(
    event: HookEventName,
    origin: HookOrigin,
    fields: Record<string, unknown> = {},
    subject = "",
  ): Promise<HookVerdict> {
    const chosen = this.options.commands.filter((c) => c.event === event && matches(c.matcher, subject));
    if (chosen.length === 0) return {};
    const input = {
      session_id: origin.sessionId,
      transcript_path: origin.transcriptPath,
      cwd: this.options.cwd,
      hook_event_name: event,
      ...(origin.agentId ? { agent_id: origin.agentId } : {}),
      ...fields,
    };
    let blocked: string | undefined;
    const context: string[] = [];
    for (const hook of chosen) {
      const run = await this.runOne(hook, input);
      const answer = interpret(run);
      origin.record({
        type: "hook",
        event,
        command: hook.command,
        source: hook.source,
        exit: run.exitCode,
        durationMs: run.durationMs,
        ...(answer.blocked !== undefined ? { blocked: true } : {}),
        ...(run.timedOut ? { timedOut: true } : {}),
      });
      if (answer.blocked !== undefined) blocked ??= answer.blocked;
      else if (answer.failure)
        origin.record({ type: "warning", message: failureNotice(hook, answer.failure) });
      if (answer.context) context.push(answer.context);
    }
    return {
      ...(blocked !== undefined ? { blocked } : {}),
      ...(context.length > 0 ? { context: context.join("\n") } : {}),
    };
  }

  private async runOne(hook: HookCommand, input: unknown): Promise<HookRun> {
    const { cwd, env } = this.options;
    try {
      const confined = hook.source === "project" ? await this.options.confinement() : undefined;
      return await runHookCommand(hook.command, input, {
        cwd,
        env: confined?.env ?? env,
        timeoutMs: hook.timeoutMs,
        ...(confined ? { wrap: confined.wrap } : {}),
      });
    } catch (error) {
      // The sandbox could not be opened: the hook does not run unconfined instead.
      const message = error instanceof Error ? error.message : String(error);
      return { exitCode: null, stdout: "", stderr: "", timedOut: false, error: message, durationMs: 0 };
    }
  }
}

function matches(matcher: string, subject: string): boolean {
  if (matcher === "") return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(subject);
  } catch {
    return false;
  }
}

/** What a hook's exit and output say (Claude Code's conventions, docs/hooks.md). */
function interpret(run: HookRun): HookVerdict & { failure?: string } {
  if (run.error !== undefined) return { failure: `could not run: ${run.error}` };
  if (run.timedOut) return { failure: "ran out of time and was stopped" };
  const stderr = run.stderr.trim();
  if (run.exitCode === 2) return { blocked: stderr || "blocked by a hook (exit 2, no reason given)" };
  if (run.exitCode !== 0) return { failure: `exit ${run.exitCode}${stderr ? `: ${stderr}` : ""}` };
  const out = run.stdout.trim();
  const json = parseObject(out);
  if (!json) return out ? { context: out } : {};
  const specific = (json.hookSpecificOutput ?? {}) as Record<string, unknown>;
  const reason = [json.reason, specific.permissionDecisionReason, json.stopReason].find(
    (r): r is string => typeof r === "string" && r.trim() !== "",
  );
  if (json.decision === "block" || specific.permissionDecision === "deny" || json.continue === false)
    return { blocked: reason ?? "blocked by a hook" };
  const extra = specific.additionalContext;
  return typeof extra === "string" && extra.trim() ? { context: extra.trim() } : {};
}

function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function failureNotice(hook: HookCommand, why: string): string {
  const short = why.length > NOTICE_CHARS ? `${why.slice(0, NOTICE_CHARS - 1)}…` : why;
  return `${hook.event} hook \`${hook.command}\` (${hook.source === "user" ? "config.json" : ".relm/hooks.json"}) failed: ${short}`;
}
