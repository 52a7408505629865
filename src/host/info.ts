import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { BudgetLimits } from "../agent/budget/budget.js";
import { contextWindow } from "../agent/compaction/windows.js";
import type { Agent } from "../agent/core/agent.js";
import type { KernelState } from "../agent/kernel-api/kernel.js";
import type { PermissionMode } from "../config/permission-mode.js";
import type { SpendRecord } from "../session/types.js";
import type { SessionStatus } from "./states/state.js";
import type { UsageTally, UsageTotals } from "./states/tree-usage.js";

/** What a status line shows about a hosted session (the `info` method). */
export interface SessionInfo {
  id: string;
  title: string;
  cwd: string;
  provider: string;
  model: string;
  status: SessionStatus;
  reason?: string;
  busy: boolean;
  /** Messages waiting for the agent: queued for the next turn, or delivered and not yet read. */
  queued: number;
  /** Prompt tokens the model takes (the same table and overrides compaction uses). */
  contextWindow: number;
  /** Input + output tokens of the root's last model response: what compaction compares to the window. */
  contextTokens: number;
  /** The fraction of the window at which the conversation is compacted. */
  compactAt: number;
  /** The whole tree (children, llm() calls, compactions) over the session's whole life. */
  usage: UsageTotals;
  /** usage.input + usage.output. */
  tokens: number;
  /** USD over the session's whole life; null when some call had no known price. */
  cost: number | null;
  /** Since the session was created (its journal header). */
  elapsedMs: number;
  limits: BudgetLimits;
  /** What the budgets of this host count (since the host started the session). */
  spent: SpendRecord;
  kernel: KernelState;
  /** Whether the session's kernels run in a sandbox (docs/sandbox.md); sandboxed sessions message only such. */
  sandboxed: boolean;
  /** The permission mode (docs/sandbox.md): plan, workspace or full. */
  mode: PermissionMode;
  /** Why the mode is full without being asked for (no sandbox on this machine), and how to get one. */
  modeWarning?: string;
  goal: string | null;
  autonomy: { gates: string[] } | null;
  branch: string | null;
}

/**
 * The `info` method's answer, from the host (its session and turns), its options (title, cwd, autonomy)
 * and its state board (status and why, the tree's usage).
 */
export function sessionInfo(
  host: { session: Agent; busy: boolean; queued: number },
  options: { title: string; cwd: string; autonomy?: { gates: string[] } },
  board: { status: SessionStatus; reason?: string; usage: UsageTally },
): SessionInfo {
  const { session } = host;
  const { usage } = board;
  const client = session.model.current;
  const compaction = session.tree.options.compaction ?? {};
  const created = Date.parse(session.journal.header.created);
  return {
    id: session.id,
    title: options.title,
    cwd: options.cwd,
    provider: client.via,
    model: client.model,
    status: board.status,
    ...(board.reason !== undefined ? { reason: board.reason } : {}),
    busy: host.busy,
    queued: host.queued,
    contextWindow: contextWindow(client.model, compaction.windows).tokens,
    contextTokens: session.conversation.contextTokens,
    compactAt: compaction.threshold ?? 0.8,
    usage: { ...usage.usage },
    tokens: usage.usage.input + usage.usage.output,
    // Unpriced from the start when the model has no prices (not "$0.00" until its first answer).
    cost: usage.cost === 0 && client.price === null ? null : usage.cost,
    elapsedMs: Number.isFinite(created) ? Math.max(0, Date.now() - created) : 0,
    limits: { ...session.budget.limits },
    spent: session.spent(),
    kernel: session.kernel.state,
    sandboxed: session.tree.permissions.sandboxed,
    mode: session.tree.permissions.mode,
    ...(session.tree.permissions.warning ? { modeWarning: session.tree.permissions.warning } : {}),
    goal: session.goal.text ?? null,
    autonomy: options.autonomy ? { gates: [...options.autonomy.gates] } : null,
    branch: gitBranch(options.cwd),
  };
}

/**
 * The git branch of `dir` from `.git/HEAD` alone (no git process: a status line asks often); a
 * detached HEAD gives its short commit; null outside a repository.
 */
export function gitBranch(dir: string): string | null {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const dotGit = join(at, ".git");
    const head = readHead(dotGit);
    if (head !== undefined) {
      const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
      if (ref) return ref[1] as string;
      return /^[0-9a-f]{7,}$/.test(head) ? head.slice(0, 7) : null;
    }
    if (dirname(at) === at) return null;
  }
}

/** HEAD's first line, for a `.git` folder or a worktree's `.git` file (`gitdir: PATH`). */
function readHead(dotGit: string): string | undefined {
  try {
    let gitDir = dotGit;
    if (statSync(dotGit).isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
      if (!pointer) return undefined;
      gitDir = isAbsolute(pointer) ? pointer : resolve(dirname(dotGit), pointer);
    }
    return readFileSync(join(gitDir, "HEAD"), "utf8").split("\n")[0]?.trim();
  } catch {
    return undefined;
  }
}
