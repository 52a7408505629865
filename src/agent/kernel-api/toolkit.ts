// `toolkit.*` calls from the bundled toolkit in the kernel (python/relm/toolkit/): a file it changed,
// journaled with its diff as a `file_edit` event, and the gate commands run_tests() may fall back to.

import type { JournalBody } from "../../session/types.js";
import { asRecord, KernelCallError, optionalString, requiredString } from "./errors.js";

/** A diff longer than this is cut before it is journaled (the kernel cuts at 20 000 chars already). */
const DIFF_CHARS = 40_000;
const ACTIONS = new Set(["create", "write", "edit", "patch", "delete", "move"]);

export interface ToolkitApiAgent {
  readonly tree: { readonly gates: readonly string[] };
  record(body: JournalBody): unknown;
}

export function handleToolkitRequest(agent: ToolkitApiAgent, method: string, raw: unknown): unknown {
  switch (method) {
    case "toolkit.file_edit": {
      const params = asRecord(raw, method);
      const action = requiredString(params, "action");
      if (!ACTIONS.has(action)) throw new KernelCallError(`unknown file action "${action}"`);
      const diff = requiredString(params, "diff");
      const from = optionalString(params, "from");
      agent.record({
        type: "file_edit",
        path: requiredString(params, "path"),
        action: action as FileAction,
        ...(from !== undefined ? { from } : {}),
        added: count(params.added),
        removed: count(params.removed),
        diff:
          diff.length > DIFF_CHARS
            ? `${diff.slice(0, DIFF_CHARS)}\n[diff cut at ${DIFF_CHARS} chars]\n`
            : diff,
      });
      return null;
    }
    case "toolkit.gates":
      return { gates: [...agent.tree.gates] };
    default:
      throw new KernelCallError(`the host has no method "${method}"`, "not_found");
  }
}

type FileAction = "create" | "write" | "edit" | "patch" | "delete" | "move";

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}
