// Permission modes (issue 20, docs/sandbox.md "Permission modes"): how far the session's code may
// reach. Words only here (config/ is the bottom layer: flags, config.json and the host protocol all
// name modes); what each mode means for a kernel is the sandbox's business (kernel/sandbox/).
import { UsageError } from "./errors.js";

/**
 * `plan`: the project read-only too (the agent reads, analyses in memory and proposes); `workspace`:
 * the project writable, the rest of the system read-only, network only as allowed; `full`: no sandbox.
 */
export type PermissionMode = "plan" | "workspace" | "full";

/** Narrowest first: the order narrowing compares by and shift+tab cycles through. */
export const PERMISSION_MODES: readonly PermissionMode[] = ["plan", "workspace", "full"];

/** Other words people use for them (Claude Code's, Codex's), accepted wherever a mode is named. */
const ALIASES: Readonly<Record<string, PermissionMode>> = {
  plan: "plan",
  "read-only": "plan",
  readonly: "plan",
  workspace: "workspace",
  "workspace-write": "workspace",
  sandbox: "workspace",
  full: "full",
  "full-access": "full",
  "danger-full-access": "full",
  off: "full",
};

/** The mode a word names, or undefined. */
export function modeNamed(word: string): PermissionMode | undefined {
  const key = word.trim().toLowerCase();
  return Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined;
}

/** The mode `word` names; a UsageError naming `where` (the flag, the variable, the config key) if none. */
export function parseMode(word: string, where: string): PermissionMode {
  const mode = modeNamed(word);
  if (!mode)
    throw new UsageError(
      `${where} must be plan (read-only), workspace or full, got "${word}" (docs/sandbox.md)`,
    );
  return mode;
}

/** The narrower of two modes: a sub-agent asking for a wider mode than its parent's gets the parent's. */
export function narrower(a: PermissionMode, b: PermissionMode): PermissionMode {
  return PERMISSION_MODES.indexOf(a) <= PERMISSION_MODES.indexOf(b) ? a : b;
}

/** Whether `mode` confines the kernels (a sandbox is needed). */
export function sandboxed(mode: PermissionMode): boolean {
  return mode !== "full";
}

/** The next mode of the cycle (shift+tab): plan → workspace → full → plan. */
export function nextMode(mode: PermissionMode): PermissionMode {
  const at = PERMISSION_MODES.indexOf(mode);
  return PERMISSION_MODES[(at + 1) % PERMISSION_MODES.length] as PermissionMode;
}

const DESCRIPTIONS: Record<PermissionMode, string> = {
  plan: "read-only: the project and the system are read-only; code reads, analyses in memory and proposes",
  workspace: "the project is writable, the rest of the system read-only, no network beyond --allow-net",
  full: "no sandbox: code runs with your rights, writes anywhere and reaches any network",
};

/** One line on what a mode lets the session's code do, for /mode, the status line's help and the model. */
export function describeMode(mode: PermissionMode): string {
  return DESCRIPTIONS[mode];
}
