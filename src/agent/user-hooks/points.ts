// The points of an agent's work where the user's hooks run (docs/hooks.md), each a small function the
// agent's turn runner, its children's supervisor and the session host call: they build the event's
// fields as Claude Code names them, so a hook written for it reads relm's input unchanged.

import { join } from "node:path";
import { KERNEL_MARKER } from "../../kernel/index.js";
import type { CellResult } from "../../kernel/types.js";
import type { JournalBody } from "../../session/types.js";
import type { HookOrigin, UserHooks } from "./hooks.js";

/** The tool name PreToolUse and PostToolUse hooks match: the model's one tool (core/tool.ts). */
const CELL_TOOL = "ipython";

/** How many times in a row a Stop hook may send a stopping agent back to work. */
export const MAX_STOP_CONTINUES = 3;

interface HookedAgent {
  readonly id: string;
  readonly dir: string;
  readonly tree: { readonly options: { readonly kernel: { readonly env: NodeJS.ProcessEnv } } };
  record(body: JournalBody): unknown;
}

/** Where an agent's hooks say they come from: the session (its root) and, for a sub-agent, the agent. */
export function hookOrigin(agent: HookedAgent): HookOrigin {
  const root = agent.tree.options.kernel.env[KERNEL_MARKER] ?? agent.id;
  return {
    sessionId: root,
    transcriptPath: join(agent.dir, "journal.jsonl"),
    ...(agent.id !== root ? { agentId: agent.id } : {}),
    record: (body) => agent.record(body),
  };
}

/** PreToolUse: the reason a hook gives for blocking the cell, or undefined to run it. */
export async function beforeCellHooks(
  hooks: UserHooks | undefined,
  origin: HookOrigin,
  code: string,
): Promise<string | undefined> {
  if (!hooks?.has("PreToolUse")) return undefined;
  const verdict = await hooks.fire(
    "PreToolUse",
    origin,
    { tool_name: CELL_TOOL, tool_input: { code } },
    CELL_TOOL,
  );
  return verdict.blocked;
}

/** PostToolUse: the cell's code, output and status (a hook cannot undo a cell; a block is a notice). */
export async function afterCellHooks(
  hooks: UserHooks | undefined,
  origin: HookOrigin,
  code: string,
  result: CellResult,
): Promise<void> {
  if (!hooks?.has("PostToolUse")) return;
  await hooks.fire(
    "PostToolUse",
    origin,
    {
      tool_name: CELL_TOOL,
      tool_input: { code },
      tool_response: {
        output: result.output,
        status: result.status,
        ...(result.error ? { error: result.error } : {}),
        duration_ms: result.durationMs,
      },
    },
    CELL_TOOL,
  );
}
