// The editor's MCP servers (`mcpServers` of session/new and session/load) as session-scoped servers of
// that session's host: written, in the shape of .mcp.json, to a 0600 file in the session's own directory
// that the host is started with (`relm run --mcp-config FILE`). Their env and header values may be
// secrets: they stay in that file and reach only the server (the host adds them to what it redacts).
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { McpServer } from "@agentclientprotocol/sdk";
import { EDITOR_MCP_FILE, ensurePrivateDir, sessionDir } from "../session/index.js";

/** A name relm can list and call (`mcp.NAME`): what config files accept, other characters as "_". */
function serverName(name: string, taken: Set<string>): string {
  const base = name.trim().replace(/[^A-Za-z0-9_.-]/g, "_") || "server";
  let candidate = base;
  for (let i = 2; taken.has(candidate); i++) candidate = `${base}_${i}`;
  taken.add(candidate);
  return candidate;
}

const record = (pairs: readonly { name: string; value: string }[] | undefined) =>
  Object.fromEntries((pairs ?? []).map((p) => [p.name, p.value]));

/** The servers as an mcpServers object (checked by the host like any configured entry). */
function mcpServersObject(servers: readonly McpServer[]): Record<string, unknown> {
  const taken = new Set<string>();
  const out: Record<string, unknown> = {};
  for (const server of servers) {
    const name = serverName(server.name, taken);
    if ("type" in server && (server.type === "http" || server.type === "sse"))
      out[name] = { type: server.type, url: server.url, headers: record(server.headers) };
    else {
      const stdio = server as Extract<McpServer, { command: string }>;
      out[name] = { command: stdio.command, args: stdio.args ?? [], env: record(stdio.env) };
    }
  }
  return out;
}

/**
 * Writes the session's editor servers (replacing any earlier list) and returns the file, or undefined
 * when the editor gave none (an earlier file is removed, so a revived host does not start stale ones).
 */
export function writeEditorServers(
  home: string,
  id: string,
  servers: readonly McpServer[],
): string | undefined {
  const dir = sessionDir(home, id);
  const path = join(dir, EDITOR_MCP_FILE);
  if (servers.length === 0) {
    rmSync(path, { force: true });
    return undefined;
  }
  ensurePrivateDir(dir);
  // Removed first: writeFileSync's mode applies only to a file it creates.
  rmSync(path, { force: true });
  writeFileSync(path, `${JSON.stringify({ mcpServers: mcpServersObject(servers) }, null, 2)}\n`, {
    mode: 0o600,
  });
  return path;
}
