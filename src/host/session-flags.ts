// The flags a session was started with (model, kernel, sandbox, budgets, autonomy …), kept beside its
// journal so that every later host of the session runs it the same way. Sessions come back in hosts
// nobody gave their flags: `relm send`, `attach`, a due schedule, an idle session's stub. Without this
// file those hosts ran with the defaults: a session started with --sandbox came back unsandboxed, one
// with --kernel ssh://… ran its next cells on this machine, one with --max-cost had no budget.
// A flag given again when resuming replaces the remembered one (and is remembered from then on).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { SessionSpec } from "../config/options.js";
import { writePrivateFile } from "../config/private-file.js";
import { mergeSpec, specFromJson } from "../config/session-spec.js";
import { editorMcpFile, sessionDir } from "../session/index.js";

const FILE = "flags.json";

/**
 * Writes what of `flags` a later host of session `id` must start with: the options the table marks
 * remembered (config/options.ts; not --var, --goal, or how one host was started), 0600, mcp files
 * made absolute.
 */
export function rememberFlags(home: string, id: string, flags: SessionSpec, cwd: string): void {
  const kept = specFromJson(flags, (def) => def.remember);
  if (flags.mcpConfig && kept.mcpConfig)
    keepUserMcpFiles(
      home,
      id,
      kept,
      flags.mcpConfig.map((f) => resolve(cwd, f)),
    );
  const path = flagsPath(home, id);
  const text = `${JSON.stringify(kept)}\n`;
  if (readText(path) === text) return; // a resume that gave no new flag: nothing to write
  writePrivateFile(path, text);
}

/**
 * A person switched the session's permission mode (/mode): remembered as `mode`, in place of whatever
 * said it before (`--sandbox` too), so a session switched to plan never comes back wider.
 */
export function rememberMode(home: string, id: string, mode: string): void {
  const kept = readRemembered(home, id) as Record<string, unknown>;
  delete kept.sandbox;
  kept.mode = mode;
  writePrivateFile(flagsPath(home, id), `${JSON.stringify(kept)}\n`);
}

/** `flags` with what session `id` remembers for every flag not given now. */
export function withRememberedFlags<T extends SessionSpec>(home: string, id: string, flags: T): T {
  return mergeSpec(flags, readRemembered(home, id));
}

/** What the file holds, each value checked against its flag's kind (a damaged file remembers nothing). */
function readRemembered(home: string, id: string): SessionSpec {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readText(flagsPath(home, id)) ?? "");
  } catch {
    return {}; // a session from before this file, or one whose file was lost: the flags given now
  }
  const out = specFromJson(parsed, (def) => def.remember);
  // Files of an earlier relm remembered the editor's file too: it is not the user's flag (see above).
  if (out.mcpConfig) keepUserMcpFiles(home, id, out, out.mcpConfig);
  return out;
}

/**
 * Keeps as `spec`'s --mcp-config the files a session remembers: not its editor's file (EDITOR_MCP_FILE), which `relm acp`
 * rewrites or removes at each session/load and every host of the session reads while it exists. Remembered,
 * a load that gave no servers left a flag naming a removed file, and no host of the session could start.
 */
function keepUserMcpFiles(home: string, id: string, spec: SessionSpec, files: string[]): void {
  const editors = editorMcpFile(home, id);
  const kept = files.filter((file) => file !== editors);
  if (kept.length > 0) spec.mcpConfig = kept;
  else delete spec.mcpConfig;
}

function flagsPath(home: string, id: string): string {
  return `${sessionDir(home, id)}/${FILE}`;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
