// `request(kind, reason, **details)` from Python (python/relm/approvals.py): the agent asks for more
// than its permission mode allows (docs/sandbox.md, "Approvals"). The params are the kernel's, so
// untrusted: checked here, shown to the person exactly as they will be acted on, and acted on only
// after the answer is journaled (approvals/broker.ts).
import path from "node:path";
import { within } from "../../config/paths.js";
import { modeNamed, narrower, type PermissionMode } from "../../config/permission-mode.js";
import { parseNetRule } from "../../kernel/sandbox/policy.js";
import { runOutside, writeOutside } from "../approvals/act.js";
import type { ApprovalDecision, Approvals } from "../approvals/broker.js";
import { type ApprovalAsk, realTarget } from "../approvals/policy.js";
import type { Permissions } from "../permissions.js";
import { cancellable } from "./cancellable.js";
import { asRecord, KernelCallError, requiredString } from "./errors.js";

const MAX_REASON = 2000;
const MAX_COMMAND = 10_000;
const MAX_WRITE = 10 * 1024 * 1024;

/** The agent whose kernel asks, as a request needs it. */
export interface ApprovalAgent {
  readonly id: string;
  /** The agent's permission mode now. */
  readonly mode: PermissionMode;
  readonly tree: {
    readonly approvals: Approvals;
    readonly permissions: Permissions;
    readonly options: { readonly cwd: string; readonly kernel: { readonly outputCap: number } };
    /** The environment commands run with outside the sandbox: the kernels' (no API keys). */
    commandEnv(): NodeJS.ProcessEnv;
  };
}

/** The request as the host will act on it: a host rule, a command, an absolute path, a mode. */
function checkAsk(agent: ApprovalAgent, params: Record<string, unknown>): ApprovalAsk & { content?: string } {
  const kind = requiredString(params, "kind");
  switch (kind) {
    case "net": {
      const given = requiredString(params, "host");
      let rule: { host: string; port?: number };
      try {
        rule = parseNetRule(given);
      } catch (error) {
        throw new KernelCallError(
          `request('net'): ${(error as Error).message.replace(/^--allow-net /, "host ")}`,
        );
      }
      if (rule.host.startsWith("*."))
        throw new KernelCallError("request('net'): ask for one host, not a wildcard");
      const port = params.port ?? rule.port;
      if (
        port !== undefined &&
        (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535)
      )
        throw new KernelCallError("request('net'): port must be a whole number from 1 to 65535");
      return { kind, host: rule.host, ...(port !== undefined ? { port: port as number } : {}) };
    }
    case "run": {
      const cmd = requiredString(params, "cmd").trim();
      if (!cmd || cmd.length > MAX_COMMAND)
        throw new KernelCallError(`request('run'): cmd must be a command line of 1 to ${MAX_COMMAND} chars`);
      return { kind, cmd };
    }
    case "write": {
      const given = requiredString(params, "path");
      const content = requiredString(params, "content");
      const bytes = Buffer.byteLength(content);
      if (bytes > MAX_WRITE)
        throw new KernelCallError(`request('write'): content is too large (at most ${MAX_WRITE} bytes)`);
      // Where it will really land (symlinks of existing folders resolved): that is what the person approves.
      const file = realTarget(path.resolve(agent.tree.options.cwd, given));
      return { kind, path: file, bytes, content };
    }
    case "mode": {
      const word = requiredString(params, "mode");
      const mode = modeNamed(word);
      if (!mode)
        throw new KernelCallError(`request('mode'): mode must be plan, workspace or full, got "${word}"`);
      return { kind, mode };
    }
    default:
      throw new KernelCallError(`request(): kind must be "net", "run", "write" or "mode", got "${kind}"`);
  }
}

/** Whether the agent's mode already allows `ask` (then nobody needs asking). */
function modeAllows(agent: ApprovalAgent, ask: ApprovalAsk): boolean {
  const { permissions, options } = agent.tree;
  switch (ask.kind) {
    case "net":
      return permissions.allows(ask, agent.mode);
    case "run":
      return permissions.allows({ kind: "run-outside" }, agent.mode);
    case "write": {
      const inProject = within(ask.path, realTarget(options.cwd));
      return permissions.allows({ kind: "write", inProject }, agent.mode);
    }
    case "mode":
      return narrower(ask.mode, agent.mode) === ask.mode;
  }
}

/** What Python gets back: granted (with what was done) or refused (python/relm/approvals.py raises). */
function answerOf(decision: ApprovalDecision, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    granted: decision.allow,
    by: decision.by,
    scope: decision.scope,
    ...(decision.note ? { note: decision.note } : {}),
    ...extra,
  };
}

/** Why a request is withdrawn when its kernel exits without an interrupt reaching Python first. */
const KERNEL_GONE = "the kernel that asked stopped (killed or crashed)";

/** A request waits for its answer until then, or until approval.cancel (cancellable.ts) withdraws it. */
export async function handleApprovalRequest(
  agent: ApprovalAgent,
  raw: unknown,
  /** Aborted when the kernel that asked exits (killed, crashed): nobody is left to act on the answer. */
  gone?: AbortSignal,
): Promise<unknown> {
  const params = asRecord(raw, "request");
  return cancellable(agent, params, gone, (signal) => answerRequest(agent, params, signal), KERNEL_GONE);
}

async function answerRequest(
  agent: ApprovalAgent,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  const reason = requiredString(params, "reason").trim();
  if (!reason || reason.length > MAX_REASON)
    throw new KernelCallError(`request(): reason must say why, in 1 to ${MAX_REASON} chars`);
  const ask = checkAsk(agent, params);
  const approvals = agent.tree.approvals;
  if (ask.kind === "mode" && !approvals.isRoot(agent.id))
    throw new KernelCallError(
      "request('mode'): a sub-agent's mode is fixed when it starts; only the session's own agent can ask for another",
      "sandbox",
    );
  const { content, ...asked } = ask as ApprovalAsk & { content?: string };
  const decision = await approvals.decide(agent.id, asked, reason, modeAllows(agent, asked), signal);
  if (!decision.allow) return answerOf(decision);
  const tree = agent.tree;
  switch (asked.kind) {
    case "net": {
      const { kind: _kind, ...rule } = asked; // the host, and the port when one was asked for
      if (!tree.permissions.grantNet(rule))
        return answerOf(decision, {
          note: "approved, but this session's sandbox was started without a network proxy (--approve never), so it cannot be opened live",
          granted: false,
        });
      return answerOf(decision, rule);
    }
    case "run": {
      const ran = await runOutside(
        asked.cmd,
        tree.options.cwd,
        tree.commandEnv(),
        tree.options.kernel.outputCap,
      );
      return answerOf(decision, { ...ran });
    }
    case "write":
      try {
        writeOutside(asked.path, content ?? "");
      } catch (error) {
        return answerOf(decision, { error: (error as Error).message });
      }
      return answerOf(decision, { path: asked.path, bytes: asked.bytes });
    case "mode":
      if (asked.mode === agent.mode) return answerOf(decision, { mode: asked.mode });
      approvals.switchAfterCell(asked.mode);
      return answerOf(decision, {
        mode: asked.mode,
        note: `the kernel restarts in mode ${asked.mode} when this cell ends, its variables restored (you are told which could not be)`,
      });
  }
}
