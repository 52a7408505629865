// `relm mcp list|add|remove|test` (docs/mcp.md). Env and header values are never printed: listings
// show their names only.

import { join } from "node:path";
import { pythonName } from "../../agent/kernel-api/mcp-prompt.js";
import { relmHomeFrom } from "../../config/config.js";
import { ConfigError, UsageError } from "../../config/errors.js";
import { projectRoot } from "../../config/project-root.js";
import { printable } from "../../config/text.js";
import { relmVersion } from "../../config/version.js";
import { addServerEntry, removeServerEntry, type ServerEntry, serverNamesIn } from "../../mcp/config-file.js";
import {
  type Admission,
  admissionOf,
  loadMcpConfig,
  MAX_NAME,
  McpClients,
  type McpServer,
  McpServerError,
  mcpConfigFiles,
  parseServer,
  readToolCache,
  readTrust,
  summaryOf,
  targetOf,
} from "../../mcp/index.js";
import { EXIT } from "../exit-codes.js";
import type { RunIo } from "../run.js";
import { approveWritten, configOf, serverNamed } from "./trust.js";

const NAME = new RegExp(`^[A-Za-z0-9_.-]{1,${MAX_NAME}}$`);

export async function listAction(
  io: RunIo,
  flags: { json?: boolean; mcpConfig?: string[] },
): Promise<number> {
  const home = relmHomeFrom(io.env);
  const config = configOf(io, home, flags);
  const store = readTrust(home);
  const rows = config.servers.map((s) => {
    const tools = s.problem ? undefined : readToolCache(join(home, "cache"), s);
    return { server: s, tools, admission: admissionOf(s, store) };
  });
  if (flags.json) {
    for (const { server: s, tools, admission } of rows) {
      const line = {
        name: s.name,
        scope: s.scope,
        source: s.source,
        transport: s.transport,
        target: targetOf(s),
        env: Object.keys(s.env),
        headers: Object.keys(s.headers),
        tools: tools?.map((t) => t.name) ?? null,
        problem: s.problem ?? null,
        trust: admission.state,
        outsideSandbox: admission.outsideSandbox,
      };
      io.stdout.write(`${JSON.stringify(line)}\n`);
    }
    return EXIT.done;
  }
  if (rows.length === 0) {
    io.stdout.write(
      `No MCP servers configured. Add one with relm mcp add NAME -- COMMAND [ARGS...] or relm mcp add NAME URL.\n` +
        `Read: ${config.files.map((f) => f.path).join(", ")}\n`,
    );
    return EXIT.done;
  }
  // What a project's file says is shown with its control characters escaped (an escape sequence in a
  // command line must not redraw the terminal over what it runs).
  const line = (text: string) => io.stdout.write(`${printable(text)}\n`);
  for (const { server: s, tools, admission } of rows) {
    line(`${s.name}  (${s.transport}, ${s.scope}: ${s.source})`);
    line(`  ${targetOf(s)}`);
    const trust = trustLine(s, admission);
    if (trust) line(`  ${trust}`);
    const names = [
      ...Object.keys(s.env).map((k) => `env ${k}`),
      ...Object.keys(s.headers).map((h) => `header ${h}`),
    ];
    if (names.length > 0) line(`  ${names.join(", ")} (values not shown)`);
    if (s.problem) line(`  unusable: ${s.problem}`);
    else if (tools) line(`  tools (as of its last start): ${tools.map((t) => t.name).join(", ") || "none"}`);
    else line(`  tools: not yet known (relm mcp test ${s.name})`);
  }
  return EXIT.done;
}

/** Whether a session may start it (project servers), and where under --sandbox. */
function trustLine(server: McpServer, admission: Admission): string | undefined {
  const approveWith = server.approval?.approveWith ?? "";
  const where = server.transport !== "stdio" ? "" : admission.outsideSandbox ? ", outside the sandbox" : "";
  switch (admission.state) {
    case "trusted":
      return admission.outsideSandbox && server.transport === "stdio"
        ? 'runs outside a session\'s sandbox ("sandbox": false)'
        : undefined;
    case "approved":
      return `approved${where}`;
    case "changed":
      return `CHANGED since you approved it: sessions will not start it (${approveWith} after checking it)`;
    case "not approved":
      return admission.refusal?.includes("cannot be checked")
        ? admission.refusal
        : `NOT APPROVED: sessions will not start it (${approveWith} after checking it)`;
  }
}

interface AddFlags {
  scope?: string;
  transport?: string;
  env?: string[];
  header?: string[];
  force?: boolean;
  outsideSandbox?: boolean;
}

export async function addAction(
  io: RunIo,
  name: string,
  target: string,
  args: string[],
  flags: AddFlags,
): Promise<number> {
  if (!NAME.test(name))
    throw new UsageError(
      `a server name may hold only letters, digits, "_", "-" and "." (at most ${MAX_NAME} characters; got "${name}")`,
    );
  const scope = scopeOf(flags.scope) ?? "user";
  const isUrl = /^https?:\/\//.test(target);
  // Another scheme (ftp://, ws://) is a URL relm cannot use, not a command to run.
  if (!isUrl && /^[a-z][a-z0-9+.-]*:\/\//i.test(target))
    throw new UsageError(
      `"${target}" is not an http:// or https:// URL: an HTTP server needs one; a command is relm mcp add ${name} -- COMMAND`,
    );
  const transport = flags.transport ?? (isUrl ? "http" : "stdio");
  if (!["stdio", "http", "sse"].includes(transport))
    throw new UsageError(`--transport must be stdio, http or sse, got "${transport}"`);
  const entry: ServerEntry = {};
  if (transport === "stdio") {
    if (isUrl) throw new UsageError(`${target} is a URL: give --transport http (or sse), or a command`);
    if ((flags.header ?? []).length > 0)
      throw new UsageError("--header is for HTTP servers; a command gets --env");
    entry.command = target;
    if (args.length > 0) entry.args = args;
    // In the user's file the entry says it; a project's file cannot (its approval does, below).
    if (flags.outsideSandbox && scope === "user") entry.sandbox = false;
    const env = parsePairs(flags.env ?? [], "--env", "=");
    if (Object.keys(env).length > 0) entry.env = env;
  } else {
    if (!isUrl)
      throw new UsageError(`an ${transport} server needs an http:// or https:// URL, got "${target}"`);
    if (args.length > 0) throw new UsageError(`unexpected arguments after the URL: ${args.join(" ")}`);
    if ((flags.env ?? []).length > 0)
      throw new UsageError("--env is for command servers; an HTTP server gets --header");
    entry.type = transport as "http" | "sse";
    entry.url = target;
    const headers = parsePairs(flags.header ?? [], "--header", ":");
    if (Object.keys(headers).length > 0) entry.headers = headers;
  }
  const home = relmHomeFrom(io.env);
  const file = fileFor(scope, io.cwd, home);
  // Checked the way a session will read it, so a mistake shows now rather than at the first call.
  parseServer(name, entry, file, scope, io.env, projectRoot(io.cwd));
  if (!addServerEntry(file, name, entry, { replace: flags.force === true, alwaysPrivate: scope === "user" }))
    throw new UsageError(
      `${file} already configures "${name}": give --force to replace it, or relm mcp remove ${name}`,
    );
  io.stdout.write(`Added MCP server "${name}" (${transport}) to ${file}\n`);
  if (scope === "project") {
    // The user wrote this entry: approved as written (a later change to it needs a new approval).
    approveWritten(io, home, name, entry, file, flags.outsideSandbox === true && transport === "stdio");
    io.stdout.write(`Approved it for this project (relm mcp revoke ${name} to undo).\n`);
  }
  const literal = Object.values({ ...entry.env, ...entry.headers }).some((v) => !v.includes("${"));
  if (scope === "project" && literal)
    io.stderr.write(
      `relm: ${file} now holds env/header values; if they are secrets, write \${VAR} instead and set VAR in ` +
        "your environment, so the file can be shared (docs/mcp.md)\n",
    );
  io.stdout.write(
    `Kernels call it as mcp.${pythonName(name)}.TOOL(...); relm mcp test ${name} starts it now.\n`,
  );
  return EXIT.done;
}

export async function removeAction(io: RunIo, name: string, flags: { scope?: string }): Promise<number> {
  const home = relmHomeFrom(io.env);
  const scope = scopeOf(flags.scope);
  const files = mcpConfigFiles(io.cwd, home).filter((f) => !scope || f.scope === scope);
  const holding = files.filter((f) => serverNamesIn(f.path).includes(name));
  if (holding.length === 0)
    throw new UsageError(`no MCP server called "${name}" in ${files.map((f) => f.path).join(", ")}`);
  if (holding.length > 1 && new Set(holding.map((f) => f.scope)).size > 1)
    throw new UsageError(
      `"${name}" is configured in ${holding.map((f) => f.path).join(" and ")}: give --scope user or --scope project`,
    );
  for (const f of holding) {
    removeServerEntry(f.path, name, f.scope === "user");
    io.stdout.write(`Removed MCP server "${name}" from ${f.path}\n`);
  }
  return EXIT.done;
}

export async function testAction(io: RunIo, name: string, flags: { json?: boolean }): Promise<number> {
  const home = relmHomeFrom(io.env);
  const config = loadMcpConfig(io.cwd, home, io.env);
  const server = serverNamed(config, name);
  const clients = new McpClients(config, {
    env: io.env,
    cwd: io.cwd,
    cacheDir: join(home, "cache"),
    clientVersion: relmVersion(),
    requestTimeoutMs: 30_000,
    home,
  });
  const started = performance.now();
  let startedIn: number | undefined;
  try {
    const tools = await clients.get(name).tools({ onStart: (info) => (startedIn = info.ms) });
    const ms = Math.round(performance.now() - started);
    report(io, server, tools, startedIn ?? ms, flags.json === true);
    return EXIT.done;
  } catch (error) {
    if (error instanceof McpServerError) throw new ConfigError(error.message);
    throw error;
  } finally {
    await clients.close();
  }
}

function report(
  io: RunIo,
  server: McpServer,
  tools: { name: string; description: string }[],
  ms: number,
  json: boolean,
): void {
  if (json) {
    const line = {
      name: server.name,
      transport: server.transport,
      readyMs: ms,
      tools: tools.map((t) => ({ name: t.name, summary: summaryOf(t.description) })),
    };
    io.stdout.write(`${JSON.stringify(line)}\n`);
    return;
  }
  io.stdout.write(`"${server.name}" (${server.transport}) is ready in ${ms} ms, ${tools.length} tools:\n`);
  for (const t of tools) {
    const summary = summaryOf(t.description);
    io.stdout.write(`  ${t.name}${summary ? `: ${summary}` : ""}\n`);
  }
}

function scopeOf(value: string | undefined): "user" | "project" | undefined {
  if (value === undefined) return undefined;
  if (value !== "user" && value !== "project")
    throw new UsageError(`--scope must be user or project, got "${value}"`);
  return value;
}

function fileFor(scope: "user" | "project", cwd: string, home: string): string {
  // The project's shared .mcp.json, which other MCP clients read too; the user's own file in $RELM_HOME.
  return scope === "user" ? join(home, "mcp.json") : join(projectRoot(cwd), ".mcp.json");
}

function parsePairs(items: string[], flag: string, separator: "=" | ":"): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf(separator);
    const key = at > 0 ? item.slice(0, at).trim() : "";
    if (!key || /\s/.test(key))
      throw new UsageError(
        `${flag} takes ${separator === "=" ? "KEY=VALUE" : '"Name: value"'}, got "${item}"`,
      );
    const value = item.slice(at + 1);
    out[key] = separator === ":" ? value.trim() : value;
  }
  return out;
}
