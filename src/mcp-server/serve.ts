// `relm mcp serve`: relm as an MCP server over stdio, for Claude Code, Codex or any MCP client. Every
// task is a normal relm session with its own detached host (docs/mcp-server.md); this process only
// starts hosts and follows them, so it holds no kernel.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { BudgetLimits } from "../agent/budget/budget.js";
import { type ConfigFlags, noModelMessage, relmHomeFrom, resolveConfig } from "../config/config.js";
import type { SessionSpec } from "../config/options.js";
import { relmVersion } from "../config/version.js";
import { ServerStdioTransport } from "./stdio-transport.js";
import { stopTask, type TaskEnvironment, TaskInputError } from "./tasks.js";
import { registerTools, type ServerState } from "./tools.js";

interface ServeOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stderr: NodeJS.WritableStream;
  /** The model and endpoint flags (checked before each task starts). */
  model: ConfigFlags;
  /** Options every task's host is started with (model, cell timeout, depth…). */
  hostSpec: SessionSpec;
  /** The server's budget flags: the most any one task may spend. */
  caps: BudgetLimits;
}

const INSTRUCTIONS =
  "relm is a coding and research agent whose model works in a persistent Python kernel and can run " +
  "sub-agents. Hand it work that needs code over large data or many files: run_task for work that fits " +
  "in one tool call, start_task + task_result for longer work. Put large inputs in `variables`, not in " +
  "the task text. Budgets (max_turns, max_tokens, max_time, max_cost) are hard limits.";

export async function serveMcp(options: ServeOptions): Promise<number> {
  const environment: TaskEnvironment = {
    home: relmHomeFrom(options.env),
    env: options.env,
    cwd: options.cwd,
    hostSpec: options.hostSpec,
    caps: options.caps,
    preflight: () => {
      if (!resolveConfig(options.env, options.model).model.model) throw new TaskInputError(noModelMessage());
    },
  };
  const state: ServerState = { foreground: new Set() };
  const server = new McpServer(
    { name: "relm", title: "relm", version: relmVersion() },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  registerTools(server, environment, state);
  // The SDK's Client ignores a cancellation of the request numbered 0 (`if (!requestId)`), so a question
  // relm withdraws would stay open in such a client if it were the first: a ping (every client answers
  // it) takes number 0 as soon as the client is ready, and every elicitation has a number it can cancel.
  server.server.oninitialized = () => {
    server.server.ping().catch(() => undefined);
  };
  // Answers every request, an oversize or malformed one with a JSON-RPC error (stdio-transport.ts).
  const transport = new ServerStdioTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
    process.stdin.once("close", () => resolve());
  });
  await server.connect(transport);
  options.stderr.write(`relm ${relmVersion()}: MCP server on stdio (RELM_HOME ${environment.home})\n`);
  await closed;
  // The client went away: tasks it was waiting for in the foreground stop with it (saved, resumable);
  // background tasks (start_task) go on.
  await Promise.all([...state.foreground].map((id) => stopTask(environment.home, id, true)));
  await server.close().catch(() => undefined);
  return 0;
}
