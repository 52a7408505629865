// What a failed MCP request or start is told as: one message naming the server and what went wrong
// (its exit, a handshake answer that was not MCP, a timeout), for the kernel that called it.

import type { McpServer } from "./config.js";
import { McpServerError } from "./errors.js";
import type { Opened } from "./sdk.js";

/** How the server was being started, for the message. */
interface StartedAs {
  server: McpServer;
  /** Inside the session's sandbox (which may be why it failed). */
  confined: boolean;
  timeoutMs: number;
}

/** A start that failed: why, in the words a user can act on. */
export function startFailure(error: unknown, started: StartedAs): McpServerError {
  const { server, confined, timeoutMs } = started;
  const name = server.name;
  const e = error as NodeJS.ErrnoException & { stdio?: Opened["stdio"]; code?: unknown };
  const stdio = e.stdio;
  const tail = stdio?.stderr.tail() ?? "";
  const where = server.transport === "stdio" ? `command "${server.command}"` : server.url;
  // Told when a confined server fails: the sandbox (no network, read-only home) may be why.
  const inside = confined
    ? " (it ran inside the session's sandbox; docs/mcp.md says how to let a server out)"
    : "";
  if (e.code === "ENOENT" || e.code === "EACCES")
    return new McpServerError(
      name,
      `MCP server "${name}" could not start: ${where} ${e.code === "ENOENT" ? "was not found" : "is not executable"}`,
    );
  const failed = (what: string) => new McpServerError(name, `MCP server "${name}" (${where}) ${what}`, tail);
  // Before the exit: a server whose handshake answer was refused has been stopped for it.
  const malformed = stdio?.malformed ?? (error as { malformed?: string }).malformed ?? invalidResult(error);
  if (malformed) return failed(`failed the MCP handshake: ${malformed}`);
  if (stdio?.exit) return failed(`exited before it was ready (${describeExit(stdio.exit)})${inside}`);
  if (isTimeout(error))
    return failed(`did not complete the MCP handshake within ${seconds(timeoutMs)}${inside}`);
  const verb = server.transport === "stdio" ? "could not start" : "could not be reached";
  return failed(`${verb}: ${messageOf(error)}${inside}`);
}

export function describeExit(
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
): string {
  if (!exit) return "still running";
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exit code ${exit.code}`;
}

/**
 * A result the SDK's schema refused (a zod error: `issues`), said in a line: which fields are wrong.
 * The SDK's own message is the issues as a JSON dump.
 */
function invalidResult(error: unknown): string | undefined {
  const issues = (error as { issues?: unknown })?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const said = issues.slice(0, 3).map((issue: { path?: unknown[]; message?: unknown }) => {
    const path = Array.isArray(issue.path) && issue.path.length > 0 ? issue.path.join(".") : "the result";
    return `${path}: ${String(issue.message ?? "invalid")}`;
  });
  return `its answer is not a valid MCP result (${said.join("; ")}${issues.length > 3 ? "; …" : ""})`;
}

function isTimeout(error: unknown): boolean {
  return (error as { code?: unknown }).code === -32001;
}

export function messageOf(error: unknown): string {
  const e = error as Error & { cause?: { message?: string; code?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  const text = e instanceof Error ? e.message : String(error);
  return cause && !text.includes(cause) ? `${text} (${cause})` : text;
}

export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
