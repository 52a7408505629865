import { chmodSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../config/dirs.js";
import { SessionIdError } from "./errors.js";

/** $RELM_HOME, or ~/.relm (one definition, shared with configuration). */
export { relmHomeFrom as relmHome } from "../config/home.js";

export function sessionsDir(home: string): string {
  return join(home, "sessions");
}

/**
 * The MCP servers an editor gave a session over ACP (session/new, session/load), in the shape of
 * .mcp.json, in the session's own directory: every host of the session starts them while the file exists,
 * and the editor replaces or removes it each time it loads the session.
 */
export const EDITOR_MCP_FILE = "editor-mcp.json";

export function editorMcpFile(home: string, id: string): string {
  return join(sessionDir(home, id), EDITOR_MCP_FILE);
}

export function sessionDir(home: string, id: string): string {
  // An id comes from the user's command line; never let it climb out of sessions/.
  if (id === "" || id === "." || id === ".." || /[/\\]/.test(id)) {
    throw new SessionIdError(`Invalid session id: ${JSON.stringify(id)}`);
  }
  return join(sessionsDir(home), id);
}

/**
 * Create `path` (and missing parents) as 0700. Journals hold prompts, code and outputs, so an existing
 * directory we own is tightened too; one owned by someone else is left alone (chmod would fail anyway).
 */
export function ensurePrivateDir(path: string): void {
  makeDirs(path, 0o700);
  const st = statSync(path);
  if (!st.isDirectory()) throw new Error(`Not a directory: ${path}`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid === uid && (st.mode & 0o777) !== 0o700) chmodSync(path, 0o700);
}
