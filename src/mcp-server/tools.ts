// The tools `relm mcp serve` offers: their schemas (what the calling model reads) and what each does.
// Arguments are checked by the SDK against the schemas; a bad value, a session that does not exist or a
// task that cannot start comes back as a tool error (isError) the model can read and correct, never as
// a crash of the server.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { listSessions } from "../host/states/discovery.js";
import type { WorkOutcome } from "../host/work-watch.js";
import type { Elicit } from "./approvals.js";
import { ProgressReporter } from "./progress.js";
import {
  type Follow,
  type Followed,
  follow,
  lastEventN,
  lastOutcome,
  sendMessage,
  sessionIdOf,
  startTask,
  stopTask,
  summary,
  type TaskEnvironment,
  taskSummary,
} from "./tasks.js";

const MAX_WAIT_SECONDS = 3600;

const budgets = z
  .object({
    max_turns: z.number().int().positive().optional().describe("stop after this many model calls"),
    max_tokens: z.number().int().positive().optional().describe("stop after this many input+output tokens"),
    max_time: z.number().positive().optional().describe("stop after this many seconds"),
    max_cost: z.number().positive().optional().describe("stop after this many US dollars"),
  })
  .strict()
  .describe(
    "Hard limits for this task; the whole tree of sub-agents counts. The server's own limits (relm mcp serve --max-…) still apply: the lower one wins.",
  );

const variables = z
  .record(z.string(), z.string())
  .describe(
    "Large inputs, as NAME -> text: each becomes a Python str variable in the kernel. The model is told each one's name, size and a short preview, never its content. Names are Python identifiers not starting with _.",
  );

const taskArgs = {
  task: z.string().min(1).describe("What relm should do, as you would tell a colleague."),
  cwd: z
    .string()
    .optional()
    .describe(
      "Working directory of the session (absolute, or relative to the server's); default the server's.",
    ),
  variables: variables.optional(),
  budgets: budgets.optional(),
};

const sessionId = z
  .string()
  .min(1)
  .describe("A session id (or a unique prefix of one) from run_task, start_task or list_sessions.");

/** Requests the server is following in the foreground: stopped when the client goes away. */
export interface ServerState {
  foreground: Set<string>;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

function reporter(extra: Extra): ProgressReporter | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return new ProgressReporter((progress, message) =>
    extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: token, progress, message },
    }),
  );
}

/**
 * How a tool call asks its client about a followed session's requests for approval: elicitation tied to
 * that call, when the client declared it can answer a form (approvals.ts); else none (the request waits).
 */
function elicitor(server: McpServer, extra: Extra): Elicit | undefined {
  if (!server.server.getClientCapabilities()?.elicitation?.form) return undefined;
  return (params, options) =>
    server.server.elicitInput(params, { ...options, relatedRequestId: extra.requestId });
}

/** A tool's answer: one text for the calling model, and its facts as structured content. */
function toolResult(text: string, structured: Record<string, unknown>, isError?: boolean): CallToolResult {
  return {
    content: [{ type: "text", text }],
    structuredContent: structured,
    ...(isError === undefined ? {} : { isError }),
  };
}

function followUp(id: string): string {
  return `relm session ${id}: send_message continues it; a person can open it with \`relm attach ${id}\`.`;
}

/** The answer of finished work (an error result when it did not finish well). */
function outcomeResult(id: string, outcome: WorkOutcome): CallToolResult {
  const done = outcome.status === "done";
  const head = done ? outcome.text : `relm stopped (${outcome.status}): ${outcome.text}`;
  const report = outcome.report && !done ? `\n\n${outcome.report}` : "";
  return {
    content: [
      { type: "text", text: `${head}${report}` },
      { type: "text", text: followUp(id) },
    ],
    structuredContent: {
      session_id: id,
      status: outcome.status,
      ...(done ? { answer: outcome.text } : { message: outcome.text }),
      ...(outcome.report ? { report: outcome.report } : {}),
    },
    isError: !done && outcome.status !== "idle",
  };
}

function stillRunning(id: string, why: string): CallToolResult {
  const text = `${why}; call task_result again (with wait_seconds) to wait for it.`;
  return toolResult(text, { session_id: id, status: "running" });
}

function followedResult(home: string, id: string, followed: Followed | undefined): CallToolResult {
  if (!followed) {
    // No host serves it any more: what its journal says ended last.
    const outcome = lastOutcome(home, id);
    if (outcome) return outcomeResult(id, outcome);
    const text = `session ${id} is not running and has no finished task to report`;
    return toolResult(text, { session_id: id, status: "closed" }, true);
  }
  if ("outcome" in followed) return outcomeResult(id, followed.outcome);
  return stillRunning(
    id,
    followed.waiting === "timeout" ? `session ${id} is still working` : `stopped waiting for session ${id}`,
  );
}

export function registerTools(server: McpServer, environment: TaskEnvironment, state: ServerState): void {
  const home = environment.home;

  /**
   * Follows session `id` from event `after` for one tool call, reporting progress and asking about
   * approvals through its client; `then` runs on how it ended while the progress heartbeat still beats.
   */
  const following = async <T>(
    extra: Extra,
    id: string,
    after: number,
    options: Pick<Follow, "timeoutMs" | "seed">,
    then: (followed: Followed | undefined) => T | Promise<T>,
  ): Promise<T> => {
    const progress = reporter(extra);
    try {
      const elicit = elicitor(server, extra);
      const followed = await follow(home, id, after, {
        ...options,
        onEvent: (event) => progress?.onEvent(event),
        signal: extra.signal,
        ...(elicit ? { elicit } : {}),
      });
      return await then(followed);
    } finally {
      progress?.stop();
    }
  };

  server.registerTool(
    "run_task",
    {
      title: "Run a relm task",
      description:
        "Runs a task in relm to its end and returns the answer and the session id. relm's model works in a persistent Python (IPython) kernel and can start sub-agents from Python, so give it work that needs code over data, many files or long computation. Progress is reported while it runs. For work longer than your tool-call timeout, use start_task and task_result instead.",
      inputSchema: taskArgs,
    },
    async (args, extra) => {
      const id = await startTask(environment, args);
      state.foreground.add(id);
      try {
        return await following(extra, id, 0, {}, async (followed) => {
          if (followed && "waiting" in followed) {
            // The caller cancelled: a foreground task stops with it, as relm run does on Ctrl-C.
            await stopTask(home, id, true);
            return stillRunning(id, `cancelled: session ${id} was interrupted and saved`);
          }
          // Like `relm run`: a foreground task's host ends with the task (send_message resumes it).
          await stopTask(home, id, false);
          return followedResult(home, id, followed);
        });
      } finally {
        state.foreground.delete(id);
      }
    },
  );

  server.registerTool(
    "start_task",
    {
      title: "Start a relm task in the background",
      description:
        "Starts a task in relm in the background and returns its session id at once. Check on it with task_status, get its answer with task_result. The session goes on if this server stops.",
      inputSchema: taskArgs,
    },
    async (args) => {
      const id = await startTask(environment, args);
      const text = `started relm session ${id}; task_result gets its answer`;
      return toolResult(text, { session_id: id, status: "running" });
    },
  );

  server.registerTool(
    "task_status",
    {
      title: "Status of a relm session",
      description:
        "Whether a session is still working, and what it has spent: status (running, waiting on sub-agents, idle, done, failed, interrupted), finished, tokens, cost, last activity.",
      inputSchema: { session_id: sessionId },
    },
    async ({ session_id }) => {
      const s = await taskSummary(home, sessionIdOf(home, session_id));
      return toolResult(JSON.stringify(s, null, 2), { ...s });
    },
  );

  server.registerTool(
    "task_result",
    {
      title: "Result of a relm session",
      description:
        "The answer of a session's last finished task. If it is still working, waits up to wait_seconds (default 0) for it, reporting progress, then says it is still running.",
      inputSchema: {
        session_id: sessionId,
        wait_seconds: z
          .number()
          .min(0)
          .max(MAX_WAIT_SECONDS)
          .optional()
          .describe("how long to wait for a running task"),
      },
    },
    async ({ session_id, wait_seconds }, extra) => {
      const id = sessionIdOf(home, session_id);
      const current = await taskSummary(home, id);
      if (current.finished || !current.live) {
        const outcome = lastOutcome(home, id);
        if (outcome) return outcomeResult(id, outcome);
        return toolResult(
          `session ${id} is ${current.status} with no finished task to report`,
          { session_id: id, status: current.status },
          current.status === "interrupted" || current.status === "failed",
        );
      }
      const options = { timeoutMs: (wait_seconds ?? 0) * 1000, seed: () => lastOutcome(home, id) };
      return following(extra, id, lastEventN(home, id), options, (f) => followedResult(home, id, f));
    },
  );

  server.registerTool(
    "list_sessions",
    {
      title: "List relm sessions",
      description: "relm's sessions, newest first: id, status, title, working directory, spend.",
      inputSchema: {
        limit: z.number().int().min(1).max(500).optional().describe("at most this many (default 20)"),
        cwd: z.string().optional().describe("only sessions that ran in this directory"),
      },
    },
    async ({ limit, cwd }) => {
      const all = (await listSessions(home)).filter((s) => cwd === undefined || s.cwd === cwd);
      const sessions = all.slice(0, limit ?? 20).map(summary);
      return toolResult(JSON.stringify(sessions, null, 2), { sessions, total: all.length });
    },
  );

  server.registerTool(
    "send_message",
    {
      title: "Send a message to a relm session",
      description:
        "Sends a message to a session, as a person typing in it would: a new turn if it is idle, else read at its next turn boundary; a session that has ended is resumed with it. With wait=true, returns the answer of the work it starts.",
      inputSchema: {
        session_id: sessionId,
        text: z.string().min(1).describe("the message"),
        variables: variables.optional(),
        wait: z.boolean().optional().describe("wait for the answer (default false)"),
      },
    },
    async ({ session_id, text, variables: vars, wait }, extra) => {
      const id = sessionIdOf(home, session_id);
      const sent = await sendMessage(environment, id, text, vars);
      if (!wait) {
        const text = `sent to ${id}: delivered ${sent.delivered}`;
        return toolResult(text, { session_id: id, delivered: sent.delivered });
      }
      return following(extra, id, sent.after, {}, (f) => followedResult(home, id, f));
    },
  );
}
