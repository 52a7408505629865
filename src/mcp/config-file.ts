// Editing an mcpServers file (`relm mcp add|remove`): everything else in the file is kept, and the file is
// replaced atomically. A file that holds env or header values is written 0600 (the user's file always:
// it lives in the private $RELM_HOME).

import { chmodSync, existsSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { FileShapeError, PROJECT_FILE_BYTES, readBoundedText } from "../config/bounded-read.js";
import { makeDirs } from "../config/dirs.js";
import { ConfigError } from "../config/errors.js";
import { isRecord, parseEditedJson } from "../config/records.js";

export interface ServerEntry {
  type?: "http" | "sse";
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  /** false: runs outside a sandboxed session's sandbox (honoured in the user's own file). */
  sandbox?: false;
}

function readDocument(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = parseEditedJson(readBoundedText(path, PROJECT_FILE_BYTES));
  } catch (error) {
    if (error instanceof FileShapeError) throw new ConfigError(`${error.message}; fix or remove it`);
    throw new ConfigError(`${path} is not valid JSON (${(error as Error).message}); fix or remove it`);
  }
  if (!isRecord(parsed)) throw new ConfigError(`${path} must hold a JSON object with "mcpServers"`);
  return parsed;
}

function serversOf(doc: Record<string, unknown>, path: string): Record<string, unknown> {
  const servers = doc.mcpServers ?? {};
  if (!isRecord(servers)) throw new ConfigError(`${path}: "mcpServers" must be an object of servers by name`);
  return servers;
}

/** A file's `mcpServers` object: empty when the file does not exist, a ConfigError when it is malformed. */
export function readServers(path: string): Record<string, unknown> {
  return serversOf(readDocument(path), path);
}

/** True when some entry of the file gives env or header values. */
function holdsValues(servers: Record<string, unknown>): boolean {
  return Object.values(servers).some((entry) => {
    const e = entry as { env?: object; headers?: object } | null;
    return Boolean(
      e && ((e.env && Object.keys(e.env).length > 0) || (e.headers && Object.keys(e.headers).length > 0)),
    );
  });
}

function writeDocument(path: string, doc: Record<string, unknown>, alwaysPrivate: boolean): void {
  const servers = serversOf(doc, path);
  const mode = alwaysPrivate || holdsValues(servers) ? 0o600 : 0o644;
  makeDirs(dirname(path), alwaysPrivate ? 0o700 : 0o755);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

/** Names configured in a file (none when it does not exist). */
export function serverNamesIn(path: string): string[] {
  return Object.keys(readServers(path));
}

/** Adds (or with `replace`, replaces) one server; false when the name is taken and `replace` is not set. */
export function addServerEntry(
  path: string,
  name: string,
  entry: ServerEntry,
  options: { replace: boolean; alwaysPrivate: boolean },
): boolean {
  const doc = readDocument(path);
  const servers = serversOf(doc, path);
  if (name in servers && !options.replace) return false;
  doc.mcpServers = { ...servers, [name]: entry };
  writeDocument(path, doc, options.alwaysPrivate);
  return true;
}

/** Removes one server; false when the file does not configure it. */
export function removeServerEntry(path: string, name: string, alwaysPrivate: boolean): boolean {
  const doc = readDocument(path);
  const servers = serversOf(doc, path);
  if (!(name in servers)) return false;
  const { [name]: _removed, ...rest } = servers;
  doc.mcpServers = rest;
  writeDocument(path, doc, alwaysPrivate);
  return true;
}
