// `mcp.*` calls from Python (python/relm/mcp.py) to the tree's MCP servers. Every agent's kernel calls
// its own host process, where the tree's one McpClients lives, so a child's calls reach the same
// servers as its parent's. Results are redacted of the session's secrets (which include every server's
// env and header values) before a kernel sees them; a call stops at the time budget's deadline and
// when the cell that made it is interrupted (Python sends mcp.cancel).

import {
  type McpClients,
  type McpConnection,
  McpRequestError,
  McpServerError,
  type RequestOptions,
  type StartInfo,
} from "../../mcp/index.js";
import { Redactor } from "../../session/redact.js";
import type { JournalBody } from "../../session/types.js";
import type { Budget } from "../budget/budget.js";
import { Deadline } from "../budget/deadline.js";
import { cancelCall, cancellable } from "./cancellable.js";
import { asRecord, KernelCallError, requiredString } from "./errors.js";

/** What of the tree the calls use: its servers and its secrets. */
interface McpTree {
  readonly mcp: McpClients | undefined;
  readonly options: { readonly secrets: string[] };
}

export interface McpApiAgent {
  readonly id: string;
  readonly tree: McpTree;
  readonly budget: Budget;
  record(body: JournalBody): unknown;
}

const redactors = new WeakMap<McpTree, Redactor>();

function redactorOf(tree: McpTree): Redactor {
  let r = redactors.get(tree);
  if (!r) {
    r = new Redactor(tree.options.secrets);
    redactors.set(tree, r);
  }
  return r;
}

export async function handleMcpRequest(agent: McpApiAgent, method: string, raw: unknown): Promise<unknown> {
  const params = asRecord(raw, method);
  if (method === "mcp.cancel") return cancelCall(agent, method, params);
  const clients = agent.tree.mcp;
  const redactor = redactorOf(agent.tree);
  if (method === "mcp.servers") return { servers: clients ? redactor.value(clients.status()) : [] };
  const server = requiredString(params, "server");
  if (!clients)
    throw new KernelCallError(
      `no MCP server is configured (looked for "${server}"); see relm mcp add and docs/mcp.md`,
      "mcp_server",
    );
  let connection: McpConnection;
  try {
    connection = clients.get(server);
  } catch (error) {
    if (error instanceof McpServerError) throw new KernelCallError(error.message, "mcp_server");
    throw error;
  }
  // Not stopped when its kernel exits (no `gone`): the deadline bounds it.
  return cancellable(agent, params, undefined, async (signal) => {
    const deadline = new Deadline(agent.budget, signal);
    const options: RequestOptions = {
      signal: deadline.signal,
      onStart: (info) => agent.record(startedEvent(info)),
    };
    try {
      return redactor.value(await dispatch(connection, method, params, options));
    } catch (error) {
      if (deadline.signal.aborted) {
        if (deadline.expired)
          throw new KernelCallError(
            `MCP server "${server}": the request was cancelled because the time budget (--max-time) ran out`,
            "budget",
          );
        throw new KernelCallError(`MCP server "${server}": the request was cancelled`, "mcp_tool");
      }
      if (error instanceof McpServerError) {
        const message = redactor.text(error.message);
        if (!error.repeated) agent.record({ type: "mcp", server, event: "failed", detail: message });
        throw new KernelCallError(message, "mcp_server");
      }
      if (error instanceof McpRequestError)
        throw new KernelCallError(redactor.text(error.message), "mcp_tool");
      throw error;
    } finally {
      deadline.dispose();
    }
  });
}

/** The journal event of a server that started: how, its pid, how long the start took. */
export function startedEvent(info: StartInfo): JournalBody {
  return {
    type: "mcp",
    server: info.server,
    event: "started",
    detail: `${info.kind}${info.pid ? `, pid ${info.pid}` : ""}, ready in ${info.ms} ms`,
  };
}

async function dispatch(
  connection: McpConnection,
  method: string,
  params: Record<string, unknown>,
  options: RequestOptions,
): Promise<unknown> {
  switch (method) {
    case "mcp.tools":
      return { tools: await connection.tools(options) };
    case "mcp.call":
      return {
        result: await connection.callTool(
          requiredString(params, "tool"),
          objectParam(params, "arguments"),
          options,
        ),
      };
    case "mcp.resources":
      return { resources: await connection.listResources(options) };
    case "mcp.resource_templates":
      return { templates: await connection.listResourceTemplates(options) };
    case "mcp.read_resource":
      return { result: await connection.readResource(requiredString(params, "uri"), options) };
    case "mcp.prompts":
      return { prompts: await connection.listPrompts(options) };
    case "mcp.get_prompt": {
      // Prompt arguments are strings in MCP.
      const args = Object.fromEntries(
        Object.entries(objectParam(params, "arguments")).map(([k, v]) => [
          k,
          typeof v === "string" ? v : JSON.stringify(v),
        ]),
      );
      return { result: await connection.getPrompt(requiredString(params, "name"), args, options) };
    }
    default:
      throw new KernelCallError(`the host has no method "${method}"`, "not_found");
  }
}

function objectParam(params: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = params[key];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new KernelCallError(`${key} must be an object of named arguments`);
  return value as Record<string, unknown>;
}
