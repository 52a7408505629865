// MCP server configuration in the shape other MCP clients already use:
// {"mcpServers": {NAME: {command, args, env, cwd} | {url, headers, type}}}. Read from the project's
// .relm/mcp.json and .mcp.json and from $RELM_HOME/mcp.json; a project's entry replaces the user's of
// the same name. A session's own files (`--mcp-config FILE`, the editor's servers under `relm acp`) come
// before both. Nothing here starts a server.

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigError, UsageError } from "../config/errors.js";
import { projectRoot } from "../config/project-root.js";
import { isRecord } from "../config/records.js";
import { readServers } from "./config-file.js";
import { approvalKey, needsApproval } from "./trust.js";
import type { McpScope, McpServer, McpTransport } from "./types.js";

export type { McpScope, McpServer, McpTransport } from "./types.js";

export interface McpConfig {
  /** By name; session entries replace project entries, which replace user entries of the same name. */
  servers: McpServer[];
  /** The files read, most important first (whether or not they exist). */
  files: { path: string; scope: McpScope }[];
}

/** The configuration files, most important first: the project's relm file, its shared file, the user's. */
export function mcpConfigFiles(cwd: string, home: string): { path: string; scope: McpScope }[] {
  const root = projectRoot(cwd);
  return [
    { path: join(root, ".relm", "mcp.json"), scope: "project" },
    { path: join(root, ".mcp.json"), scope: "project" },
    { path: join(home, "mcp.json"), scope: "user" },
  ];
}

/**
 * Every configured server; `sessionFiles` (--mcp-config, absolute) come first and must exist. `env` is
 * where `${VAR}` and `${VAR:-default}` in the entries are looked up (the usual way to keep a token out
 * of a file). A file that is not JSON is a ConfigError; an entry
 * that cannot be used (malformed, disabled, an unset variable) is kept with its `problem`, so that
 * calling it says why.
 */
export function loadMcpConfig(
  cwd: string,
  home: string,
  env: NodeJS.ProcessEnv,
  sessionFiles: readonly string[] = [],
): McpConfig {
  const files = [
    ...sessionFiles.map((path) => ({ path, scope: "session" as const })),
    ...mcpConfigFiles(cwd, home),
  ];
  const byName = new Map<string, McpServer>();
  const project = projectRoot(cwd);
  for (const file of files) {
    const entries = file.scope === "session" ? sessionServers(file.path) : readServers(file.path);
    if (Object.keys(entries).length === 0) continue; // absent or empty: nothing to approve or start
    const approval = needsApproval(file.scope, file.path, project, home);
    for (const [name, raw] of Object.entries(entries)) {
      if (byName.has(name)) continue;
      let server: McpServer;
      try {
        server = parseServer(name, raw, file.path, file.scope, env, dirname(file.path));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        // An entry relm cannot read (another client's extension, a typo) must not stop a session that
        // never calls it; calling it, or `relm mcp list`, says what is wrong.
        server = unusable(name, file.path, file.scope, error.message);
      }
      if (approval) server.approval = approvalKey(name, raw, file.path, file.scope, project);
      byName.set(name, server);
    }
  }
  return { servers: [...byName.values()], files };
}

/**
 * Each `--mcp-config FILE` (absolute) exists and is an mcpServers JSON file: a usage error naming the flag
 * and the file otherwise (exit 2), whether it is missing, a directory or not JSON; the hosts `relm acp`
 * and `relm mcp serve` start check them before they start.
 */
export function checkSessionFiles(paths: readonly string[]): void {
  for (const path of paths) sessionServers(path);
}

/** One `--mcp-config FILE`'s entries, read once; what is wrong with the file is a usage error naming it. */
function sessionServers(path: string): Record<string, unknown> {
  if (!existsSync(path)) throw new UsageError(`--mcp-config ${path}: no such file`);
  try {
    return readServers(path);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // readServers' messages begin with the path ("X is not valid JSON …"), or say it after.
    const said = error.message.startsWith(path) ? error.message : `${path}: ${error.message}`;
    throw new UsageError(`--mcp-config ${said}`);
  }
}

function unusable(name: string, source: string, scope: McpScope, problem: string): McpServer {
  return { name, scope, source, transport: "stdio", args: [], env: {}, headers: {}, problem };
}

/** Server names become Python attributes and prompt lines: a short, plain identifier. */
export const MAX_NAME = 64;
const SERVER_NAME = new RegExp(`^[A-Za-z0-9_.-]{1,${MAX_NAME}}$`);

const TRANSPORTS: Record<string, McpTransport> = {
  stdio: "stdio",
  http: "http",
  "streamable-http": "http",
  streamableHttp: "http",
  sse: "sse",
};

/** One entry, checked; structural mistakes are ConfigErrors naming the file and the server. */
export function parseServer(
  name: string,
  raw: unknown,
  source: string,
  scope: McpScope,
  env: NodeJS.ProcessEnv,
  baseDir: string,
): McpServer {
  // JSON-quoted and cut: a name is text from the file, and this message may reach a prompt.
  const where = `${source}: server ${JSON.stringify(name.length > 80 ? `${name.slice(0, 79)}…` : name)}`;
  if (!isRecord(raw)) throw new ConfigError(`${where} must be an object`);
  if (!SERVER_NAME.test(name))
    throw new ConfigError(
      `${where}: a name may hold only letters, digits, "_", "-" and "." (at most ${MAX_NAME} characters)`,
    );
  const typeName = raw.type === undefined ? undefined : String(raw.type);
  if (typeName !== undefined && !(typeName in TRANSPORTS))
    throw new ConfigError(`${where}: unknown "type" ${JSON.stringify(typeName)} (stdio, http or sse)`);
  const command = optionalString(raw, "command", where);
  const url = optionalString(raw, "url", where);
  const transport: McpTransport = typeName ? (TRANSPORTS[typeName] as McpTransport) : url ? "http" : "stdio";
  if (transport === "stdio" && !command) throw new ConfigError(`${where} needs "command" (or "url")`);
  if (transport !== "stdio" && !url) throw new ConfigError(`${where} needs "url"`);
  const unset = new Set<string>();
  const expand = (value: string) => expandVars(value, env, unset);
  const server: McpServer = {
    name,
    scope,
    source,
    transport,
    args: stringList(raw, "args", where).map(expand),
    env: mapValues(stringRecord(raw, "env", where), expand),
    headers: mapValues(stringRecord(raw, "headers", where), expand),
  };
  if (transport === "stdio") {
    server.command = expand(command as string);
    const cwd = optionalString(raw, "cwd", where);
    if (cwd) server.cwd = resolve(baseDir, expand(cwd));
  } else {
    server.url = expand(url as string);
    if (unset.size === 0 && !/^https?:\/\//.test(server.url))
      throw new ConfigError(`${where}: "url" must start with http:// or https://`);
  }
  if (raw.sandbox !== undefined && typeof raw.sandbox !== "boolean")
    throw new ConfigError(`${where}: "sandbox" must be true or false`);
  if (raw.sandbox === false) server.unconfined = true;
  if (raw.disabled === true) server.problem = `it is disabled in ${source}`;
  else if (unset.size > 0)
    server.problem = `${source} uses ${[...unset].map((v) => `\${${v}}`).join(", ")}, which ${unset.size === 1 ? "is" : "are"} not set`;
  return server;
}

/** `${VAR}` and `${VAR:-default}`, from `env`; unset names without a default are collected. */
function expandVars(value: string, env: NodeJS.ProcessEnv, unset: Set<string>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_all, name: string, fallback) => {
    const found = env[name];
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback as string;
    unset.add(name);
    return "";
  });
}

/**
 * The values a server is given that must never be shown: its env values and header values (whole,
 * and the token after "Bearer " or "Basic "), to be added to the session's secrets.
 */
export function serverSecrets(servers: readonly McpServer[]): string[] {
  const out: string[] = [];
  for (const s of servers) {
    out.push(...Object.values(s.env));
    for (const value of Object.values(s.headers)) {
      out.push(value);
      const token = /^\s*\w+\s+(\S{8,})\s*$/.exec(value)?.[1];
      if (token) out.push(token);
    }
  }
  return out;
}

/** A stable hash of everything that decides what a server is (its tool list is cached under it). */
export function serverHash(server: McpServer): string {
  const identity = {
    transport: server.transport,
    command: server.command,
    args: server.args,
    env: sorted(server.env),
    cwd: server.cwd,
    url: server.url,
    headers: sorted(server.headers),
  };
  return createHash("sha256").update(JSON.stringify(identity)).digest("hex").slice(0, 32);
}

function sorted(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}

function optionalString(raw: Record<string, unknown>, key: string, where: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.trim() === "")
    throw new ConfigError(`${where}: "${key}" must be a non-empty string`);
  return value;
}

function stringList(raw: Record<string, unknown>, key: string, where: string): string[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    throw new ConfigError(`${where}: "${key}" must be a list of strings`);
  return value as string[];
}

function stringRecord(raw: Record<string, unknown>, key: string, where: string): Record<string, string> {
  const value = raw[key];
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new ConfigError(`${where}: "${key}" must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "number" || typeof v === "boolean") out[k] = String(v);
    else if (typeof v === "string") out[k] = v;
    else throw new ConfigError(`${where}: "${key}.${k}" must be a string`);
  }
  return out;
}

function mapValues(record: Record<string, string>, fn: (v: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]));
}
