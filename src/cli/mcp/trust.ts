// `relm mcp approve|revoke` (docs/mcp.md, "Trust"): the user's approval of servers configured inside a
// project, kept by content hash in $RELM_HOME/trust.json (src/config/trust.ts). What approve prints is
// what it approves: the entry is read once, shown and hashed from that one reading.

import { resolve } from "node:path";
import { relmHomeFrom } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import { projectRoot } from "../../config/project-root.js";
import { printable } from "../../config/text.js";
import { TrustStore, updateTrust } from "../../config/trust.js";
import {
  admissionOf,
  approvalKey,
  approveServer,
  loadMcpConfig,
  MCP_TRUST_KIND,
  type McpConfig,
  type McpServer,
  readTrust,
  targetOf,
} from "../../mcp/index.js";
import { EXIT } from "../exit-codes.js";
import type { RunIo } from "../run.js";

interface TrustFlags {
  all?: boolean;
  outsideSandbox?: boolean;
  mcpConfig?: string[];
}

/** The servers a session here would see, with those of `--mcp-config` files. */
export function configOf(io: RunIo, home: string, flags: { mcpConfig?: string[] }): McpConfig {
  const files = (flags.mcpConfig ?? []).map((file) => resolve(io.cwd, file));
  return loadMcpConfig(io.cwd, home, io.env, files);
}

/** The configured server called `name`; a usage error naming the configured ones when there is none. */
export function serverNamed(config: McpConfig, name: string): McpServer {
  const server = config.servers.find((s) => s.name === name);
  if (server) return server;
  const known = config.servers.map((s) => s.name);
  throw new UsageError(
    `no MCP server called "${name}"${known.length > 0 ? `; configured: ${known.join(", ")}` : ""}`,
  );
}

/** The lines that say what a server will run, from its entry as the file writes it. */
function describeEntry(server: McpServer): string[] {
  const raw = (server.approval?.entry ?? {}) as Record<string, unknown>;
  const lines =
    server.transport === "stdio"
      ? [`runs:         ${targetOf(server)}`, ...(server.cwd ? [`in:           ${server.cwd}`] : [])]
      : [`connects to:  ${server.url ?? ""} (${server.transport})`];
  // As written (a ${VAR} stays a name): literal values in a project file are the file's, not secrets of yours.
  for (const key of ["env", "headers"] as const) {
    const values = raw[key];
    if (values && typeof values === "object" && Object.keys(values).length > 0)
      lines.push(
        `${key === "env" ? "env:         " : "headers:     "} ${Object.entries(values)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(", ")}`,
      );
  }
  return lines;
}

export async function approveAction(io: RunIo, names: string[], flags: TrustFlags): Promise<number> {
  const home = relmHomeFrom(io.env);
  const config = configOf(io, home, flags);
  const gated = config.servers.filter((s) => s.approval);
  if (flags.all && names.length > 0) throw new UsageError("give server names or --all, not both");
  if (!flags.all && names.length === 0) {
    const store = readTrust(home);
    const waiting = gated.filter((s) => admissionOf(s, store).refusal).map((s) => s.name);
    throw new UsageError(
      `name the servers to approve, or give --all${waiting.length > 0 ? `; not approved: ${waiting.join(", ")}` : ""} (relm mcp list shows what each runs)`,
    );
  }
  const chosen: McpServer[] = [];
  for (const name of flags.all ? gated.map((s) => s.name) : names) {
    const server = serverNamed(config, name);
    if (!server.approval) {
      io.stdout.write(
        `"${name}" is configured in your own ${server.source}: it needs no approval` +
          (flags.outsideSandbox
            ? `; to run it outside a session's sandbox, add "sandbox": false to its entry there\n`
            : "\n"),
      );
      continue;
    }
    chosen.push(server);
  }
  if (flags.all && chosen.length === 0) {
    io.stdout.write("No MCP server of this project needs approval.\n");
    return EXIT.done;
  }
  const outside = flags.outsideSandbox === true;
  updateTrust(home, (store) => {
    for (const server of chosen) approveServer(store, server, outside);
  });
  for (const server of chosen) {
    const key = server.approval!;
    io.stdout.write(
      `${printable(`Approved MCP server "${server.name}" (${key.file}) in ${key.project}:`)}\n`,
    );
    // Escaped: an escape sequence in the entry must not redraw the terminal over what it runs.
    for (const line of describeEntry(server)) io.stdout.write(`  ${printable(line)}\n`);
    if (server.transport === "stdio")
      io.stdout.write(
        outside
          ? "  sandbox:      runs OUTSIDE the sandbox, even in a --sandbox session\n"
          : "  sandbox:      in a --sandbox session it runs inside the sandbox (--outside-sandbox to let it out)\n",
      );
  }
  io.stdout.write(
    `Any change to ${chosen.length === 1 ? "this entry" : "these entries"} needs a new approval. Undo: relm mcp revoke NAME\n`,
  );
  return EXIT.done;
}

export async function revokeAction(io: RunIo, names: string[], flags: { all?: boolean }): Promise<number> {
  const home = relmHomeFrom(io.env);
  const project = projectRoot(io.cwd);
  if (flags.all && names.length > 0) throw new UsageError("give server names or --all, not both");
  if (!flags.all && names.length === 0)
    throw new UsageError("name the servers whose approval to revoke, or give --all");
  const approved = [...TrustStore.load(home).approvals(project, MCP_TRUST_KIND).keys()];
  const chosen = flags.all ? approved : names;
  for (const name of chosen)
    if (!approved.includes(name))
      throw new UsageError(
        `no approval of an MCP server called "${name}" in ${project}${approved.length > 0 ? `; approved: ${approved.join(", ")}` : ""}`,
      );
  if (chosen.length > 0)
    updateTrust(home, (store) => {
      for (const name of chosen) store.revoke({ project, kind: MCP_TRUST_KIND, name });
    });
  io.stdout.write(
    chosen.length > 0
      ? `Revoked the approval of ${chosen.map((n) => `"${n}"`).join(", ")} in ${project}: sessions will not start ${chosen.length === 1 ? "it" : "them"}.\n`
      : `No MCP server is approved in ${project}.\n`,
  );
  return EXIT.done;
}

/** `relm mcp add --scope project`: the user wrote this entry, so it is approved as written. */
export function approveWritten(
  io: RunIo,
  home: string,
  name: string,
  entry: unknown,
  file: string,
  outsideSandbox: boolean,
): void {
  const project = projectRoot(io.cwd);
  const key = approvalKey(name, entry, file, "project", project);
  updateTrust(home, (store) => {
    store.approve(
      { project, kind: MCP_TRUST_KIND, name },
      key.sha256,
      outsideSandbox ? { outsideSandbox: true } : undefined,
    );
  });
}
