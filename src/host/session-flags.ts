// The flags a session was started with (model, kernel, sandbox, budgets, autonomy …), kept beside its
// journal so that every later host of the session runs it the same way. Sessions come back in hosts
// nobody gave their flags: `relm send`, `attach`, a due schedule, an idle session's stub. Without this
// file those hosts ran with the defaults: a session started with --sandbox came back unsandboxed, one
// with --kernel ssh://… ran its next cells on this machine, one with --max-cost had no budget.
// A flag given again when resuming replaces the remembered one (and is remembered from then on).
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { editorMcpFile, sessionDir } from "../session/index.js";
import { HOST_FLAGS, type HostFlagsRecord } from "./host-args.js";

const FILE = "flags.json";

/**
 * Flags that belong to one start, not to the session: --var (the kernel's variables are restored
 * instead), --goal (journaled once), and how the host was started (--interactive, --unattended).
 */
const NOT_REMEMBERED: ReadonlySet<keyof HostFlagsRecord> = new Set([
  "var",
  "goal",
  "interactive",
  "unattended",
]);

/** Writes what of `flags` a later host of session `id` must start with (0600; mcp files made absolute). */
export function rememberFlags(home: string, id: string, flags: HostFlagsRecord, cwd: string): void {
  const kept: Record<string, unknown> = {};
  for (const { key } of HOST_FLAGS) {
    if (NOT_REMEMBERED.has(key) || !given(flags[key])) continue;
    const value = flags[key];
    if (key === "mcpConfig" && Array.isArray(value)) {
      const files = userMcpFiles(
        home,
        id,
        value.map((f) => resolve(cwd, f)),
      );
      if (files.length > 0) kept[key] = files;
    } else kept[key] = value;
  }
  const path = `${sessionDir(home, id)}/${FILE}`;
  const text = `${JSON.stringify(kept)}\n`;
  if (readText(path) === text) return; // a resume that gave no new flag: nothing to write
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

/** `flags` with what session `id` remembers for every flag not given now. */
export function withRememberedFlags<T extends HostFlagsRecord>(home: string, id: string, flags: T): T {
  const remembered = readRemembered(home, id);
  const merged = { ...flags } as Record<string, unknown>;
  for (const { key } of HOST_FLAGS) {
    if (!given(flags[key]) && given(remembered[key])) merged[key] = remembered[key];
  }
  return merged as T;
}

/** What the file holds, each value checked against its flag's kind (a damaged file remembers nothing). */
function readRemembered(home: string, id: string): HostFlagsRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readText(`${sessionDir(home, id)}/${FILE}`) ?? "");
  } catch {
    return {}; // a session from before this file, or one whose file was lost: the flags given now
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  const out: Record<string, unknown> = {};
  for (const { key, kind } of HOST_FLAGS) {
    const value = (parsed as Record<string, unknown>)[key];
    const fits =
      kind === "value"
        ? typeof value === "string"
        : kind === "switch"
          ? value === true
          : Array.isArray(value) && value.every((v) => typeof v === "string");
    if (fits && !NOT_REMEMBERED.has(key)) out[key] = value;
  }
  // Files of an earlier relm remembered the editor's file too: it is not the user's flag (see above).
  if (out.mcpConfig) {
    const files = userMcpFiles(home, id, out.mcpConfig as string[]);
    if (files.length > 0) out.mcpConfig = files;
    else delete out.mcpConfig;
  }
  return out as HostFlagsRecord;
}

/**
 * The --mcp-config files a session remembers: not its editor's file (EDITOR_MCP_FILE), which `relm acp`
 * rewrites or removes at each session/load and every host of the session reads while it exists. Remembered,
 * a load that gave no servers left a flag naming a removed file, and no host of the session could start.
 */
function userMcpFiles(home: string, id: string, files: string[]): string[] {
  const editors = editorMcpFile(home, id);
  return files.filter((file) => file !== editors);
}

/** Given on the command line: a value, a switch that is on, a list with entries (commander's default is []). */
function given(value: unknown): boolean {
  return typeof value === "string" || value === true || (Array.isArray(value) && value.length > 0);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
