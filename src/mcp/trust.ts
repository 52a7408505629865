// Which MCP servers may start, and where (docs/mcp.md, "Trust"). A server configured in a file inside
// the project (.mcp.json, .relm/mcp.json, a --mcp-config file there) may have been written by a
// sandboxed cell or come with a cloned repository: it starts only when the user approved this exact
// entry (`relm mcp approve`, kept in $RELM_HOME/trust.json by src/config/trust.ts). The user's own
// files ($RELM_HOME/mcp.json, a --mcp-config file elsewhere, an editor's servers) are trusted.
//
// In a sandboxed session a stdio server runs inside the session's sandbox unless the user said
// otherwise: for an approved server, with the approval (`relm mcp approve NAME --outside-sandbox`); for
// a server of the user's own files, with `"sandbox": false` in its entry. A project file's own
// `"sandbox": false` decides nothing: the file is what is not trusted.

import { relative, resolve } from "node:path";
import { UserError } from "../config/errors.js";
import { realPath, within } from "../config/paths.js";
import { commandWords, namedProjectFiles } from "../config/project-trust.js";
import { asRecord } from "../config/records.js";
import { printable } from "../config/text.js";
import { contentHash, TrustStore, type TrustSubject } from "../config/trust.js";
import type { McpApprovalKey, McpScope, McpServer } from "./types.js";

/** The kind MCP servers are approved as, in the trust store. */
export const MCP_TRUST_KIND = "mcp";

export type McpTrustState = "trusted" | "approved" | "not approved" | "changed";

export interface Admission {
  state: McpTrustState;
  /** Runs outside the session's sandbox (when there is one). */
  outsideSandbox: boolean;
  /** Why it may not start, for the cell that called it; set unless trusted or approved. */
  refusal?: string;
}

/**
 * Whether servers of this file need the user's approval: a project file always; a session file
 * (--mcp-config) when it lies inside the project, where a sandboxed cell can rewrite it before a later
 * host of the session reads it again; never the user's own file, nor one in $RELM_HOME (an editor's
 * servers: the sandbox hides $RELM_HOME).
 */
export function needsApproval(scope: McpScope, source: string, project: string, home: string): boolean {
  if (scope === "project") return true;
  if (scope === "user") return false;
  const file = realPath(source);
  return within(file, realPath(project)) && !within(file, realPath(home));
}

/** The approval key of an entry (`raw` as the file holds it) from a file that needs approval. */
export function approvalKey(
  name: string,
  raw: unknown,
  source: string,
  scope: McpScope,
  project: string,
): McpApprovalKey {
  const file = relative(realPath(project), realPath(source)) || source;
  const declared = declaredTarget(raw);
  const approveWith =
    scope === "session" ? `relm mcp approve ${name} --mcp-config ${file}` : `relm mcp approve ${name}`;
  // The project's files its command runs are part of what is approved (namedProjectFiles).
  const files = namedProjectFiles(commandOf(raw), project, cwdOf(raw, project));
  const sha256 = contentHash(files.length > 0 ? { file, entry: raw, files } : { file, entry: raw });
  return { project, file, sha256, declared, approveWith, entry: raw };
}

/** A stdio entry's command and arguments (none for a URL). */
function commandOf(raw: unknown): string[] {
  const entry = asRecord(raw);
  if (typeof entry?.command !== "string") return [];
  const args = Array.isArray(entry.args) ? entry.args.filter((a): a is string => typeof a === "string") : [];
  // `sh -c 'python tools/srv.py'`: the script's words name files too.
  return [entry.command, ...args.flatMap((a) => [a, ...commandWords(a)])];
}

/** Where a stdio server starts: its entry's `cwd` (relative to the project), else the project. */
function cwdOf(raw: unknown, project: string): string {
  const cwd = asRecord(raw)?.cwd;
  return typeof cwd === "string" ? resolve(project, cwd) : project;
}

/** The command line or URL an entry writes (unexpanded: `${VAR}` stays as written, so no value shows). */
function declaredTarget(raw: unknown): string {
  if (raw === null || typeof raw !== "object") return JSON.stringify(raw) ?? "";
  const entry = raw as Record<string, unknown>;
  if (typeof entry.url === "string" && typeof entry.command !== "string") return entry.url;
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  return [String(entry.command ?? ""), ...args].map(quoteArg).join(" ");
}

/** An argument as a shell would need it quoted (for showing a command line). */
export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

function subject(server: McpServer, key: McpApprovalKey): TrustSubject {
  return { project: key.project, kind: MCP_TRUST_KIND, name: server.name };
}

/** Commands in messages stay short: the file is what to read for the whole of it. */
const DECLARED_CHARS = 300;

function shortened(text: string): string {
  const flat = printable(text);
  return flat.length <= DECLARED_CHARS ? flat : `${flat.slice(0, DECLARED_CHARS - 1)}…`;
}

/** The user's approvals, or why they cannot be read (a damaged trust.json: then nothing is approved). */
export function readTrust(home: string): TrustStore | UserError {
  try {
    return TrustStore.load(home);
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
}

/**
 * May this server start, and where. `store` is read by the caller (readTrust), once for a listing,
 * at each start for a session (an approval given meanwhile counts at the next call).
 */
export function admissionOf(server: McpServer, store: TrustStore | UserError): Admission {
  const key = server.approval;
  if (!key) return { state: "trusted", outsideSandbox: server.unconfined === true };
  const verb = server.transport === "stdio" ? "run" : "connect to";
  const what = `\`${shortened(key.declared)}\``;
  const name = shortened(server.name);
  const where =
    server.scope === "session"
      ? `MCP server '${name}' (${shortened(key.file)}, a --mcp-config file inside the project)`
      : `project MCP server '${name}' (${shortened(key.file)})`;
  if (store instanceof UserError)
    return {
      state: "not approved",
      outsideSandbox: false,
      refusal: `${where} cannot be checked against your approvals: ${store.message}`,
    };
  const trust = store.check(subject(server, key), key.sha256);
  if (trust.state === "approved")
    return { state: "approved", outsideSandbox: trust.approval.options?.outsideSandbox === true };
  const refusal =
    trust.state === "changed"
      ? `${where} has changed since you approved it: it would now ${verb} ${what}; approve it again with \`${shortened(key.approveWith)}\``
      : `${where} is not approved: it would ${verb} ${what}; approve it with \`${shortened(key.approveWith)}\``;
  return { state: trust.state, outsideSandbox: false, refusal };
}

/** Records the user's approval of `server` as it is configured now. */
export function approveServer(store: TrustStore, server: McpServer, outsideSandbox: boolean): void {
  const key = server.approval;
  if (!key) return;
  store.approve(subject(server, key), key.sha256, outsideSandbox ? { outsideSandbox: true } : undefined);
}
