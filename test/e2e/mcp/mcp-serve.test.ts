// `relm mcp serve` driven by the MCP SDK's own Client over real stdio, with the scripted model and real
// kernels: what Claude Code or Codex would see.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { RELM_BIN, runRelm } from "../../support/cli.js";
import { byTask } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

async function serve(
  rig: Rig,
  args: string[] = [],
): Promise<{ client: Client; close: () => Promise<void>; stderr: () => string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(rig.env)) if (v !== undefined) env[k] = v;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [RELM_BIN, "mcp", "serve", ...args],
    env,
    cwd: rig.cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const client = new Client({ name: "relm-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => stderr };
}

function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (message: string) => void,
) {
  return client.callTool({ name, arguments: args }, undefined, {
    timeout: 60_000,
    ...(onprogress ? { onprogress: (p: { message?: string }) => onprogress(p.message ?? "") } : {}),
  }) as Promise<ToolResult>;
}

const text = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("\n");

describe("relm mcp serve", () => {
  it("lists its tools; run_task returns the scripted answer and the session id, with progress and variables", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: count the numbers": [
          { code: "print(sum(int(x) for x in numbers.split()))" },
          (ctx) => ({ text: `the sum is ${ctx.lastToolResult?.trim()}` }),
        ],
      }),
    });
    const { client, close } = await serve(rig);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(tools).toEqual([
        "list_sessions",
        "run_task",
        "send_message",
        "start_task",
        "task_result",
        "task_status",
      ]);

      const progress: string[] = [];
      const result = await call(
        client,
        "run_task",
        { task: "TASK: count the numbers", variables: { numbers: "1 2 3 4 5 6" } },
        (m) => progress.push(m),
      );
      expect(result.isError, text(result)).toBeFalsy();
      expect(result.content[0]?.text).toBe("the sum is 21");
      const id = result.structuredContent?.session_id as string;
      expect(id).toMatch(/^[0-9a-z]{8}$/);
      expect(result.structuredContent?.status).toBe("done");
      expect(progress.some((m) => m.startsWith("running a cell: print(sum("))).toBe(true);
      expect(progress).toContain("answered");

      // A normal relm session: listed, and finished (its host ended with the task, as relm run's does).
      const agents = await runRelm(["agents", "--json"], { env: rig.env });
      const listed = agents.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { id: string; status: string; live: boolean });
      expect(listed.find((s) => s.id === id)).toMatchObject({ status: "done", live: false });
    } finally {
      await close();
    }
  });

  it("enforces a task's budgets: a run that would go on stops at max_turns with an error result", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: loop forever": Array.from({ length: 10 }, () => ({ code: "print('again')" })),
      }),
    });
    const { client, close } = await serve(rig);
    try {
      const result = await call(client, "run_task", {
        task: "TASK: loop forever",
        budgets: { max_turns: 2 },
      });
      expect(result.isError).toBe(true);
      expect(result.structuredContent?.status).toBe("budget");
      expect(text(result)).toMatch(/turn/i);
      // Two model calls, not ten.
      expect(rig.model.requests.length).toBe(2);
    } finally {
      await close();
    }
  });

  it("start_task + task_status + task_result for a detached run; list_sessions and send_message continue it", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: slow job": [
          // Slow work; the early task_result below accepts "running" or "done", so its length is not raced.
          { code: "import time\ntime.sleep(1.5)\nprint('slept')" },
          { text: "slow job finished" },
          { text: "second answer" },
        ],
      }),
    });
    const { client, close, stderr } = await serve(rig);
    try {
      const started = await call(client, "start_task", { task: "TASK: slow job" });
      expect(started.isError, text(started)).toBeFalsy();
      const id = started.structuredContent?.session_id as string;
      expect(id).toMatch(/^[0-9a-z]{8}$/);

      const status = await call(client, "task_status", { session_id: id });
      expect(status.isError, text(status)).toBeFalsy();
      expect(status.structuredContent).toMatchObject({ session_id: id, live: true });

      const early = await call(client, "task_result", { session_id: id });
      const finishedEarly = early.structuredContent?.status === "done";
      if (!finishedEarly) expect(early.structuredContent?.status).toBe("running");

      const result = await call(client, "task_result", { session_id: id.slice(0, 5), wait_seconds: 30 });
      expect(result.isError, text(result)).toBeFalsy();
      expect(result.content[0]?.text).toBe("slow job finished");
      const after = await call(client, "task_status", { session_id: id });
      expect(after.structuredContent).toMatchObject({ finished: true });

      const list = await call(client, "list_sessions", {});
      const sessions = list.structuredContent?.sessions as { session_id: string }[];
      expect(sessions.map((s) => s.session_id)).toContain(id);

      const reply = await call(client, "send_message", { session_id: id, text: "and then?", wait: true });
      expect(reply.isError, text(reply)).toBeFalsy();
      expect(reply.content[0]?.text).toBe("second answer");
    } catch (error) {
      throw new Error(`${(error as Error).message}\nserver stderr: ${stderr()}`);
    } finally {
      await close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("a run_task its client cancels is interrupted and saved; send_message resumes it", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: sleepy": [
          { code: "import time\nprint('zz', flush=True)\ntime.sleep(120)" },
          { text: "awake again" },
        ],
      }),
    });
    const { client, close } = await serve(rig);
    try {
      const controller = new AbortController();
      const progress: string[] = [];
      const pending = client.callTool({ name: "run_task", arguments: { task: "TASK: sleepy" } }, undefined, {
        timeout: 60_000,
        signal: controller.signal,
        onprogress: (p) => progress.push(p.message ?? ""),
      });
      await until(() => (progress.some((m) => m.startsWith("running a cell")) ? true : undefined), 60_000);
      controller.abort();
      await expect(pending).rejects.toThrow();
      const listed = await until(async () => {
        const agents = await runRelm(["agents", "--json"], { env: rig.env });
        const [s] = agents.stdout
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { id: string; status: string; live: boolean });
        return s && !s.live ? s : undefined;
      });
      expect(listed.status).toBe("interrupted");

      const reply = await call(client, "send_message", { session_id: listed.id, text: "go on", wait: true });
      expect(reply.isError, text(reply)).toBeFalsy();
      expect(reply.content[0]?.text).toBe("awake again");
    } finally {
      await close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("answers invalid arguments with MCP errors and keeps serving", async () => {
    const rig = await startRig("openai", { script: [{ text: "unused" }] });
    const { client, close } = await serve(rig);
    try {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ["run_task", {}, /task/],
        ["run_task", { task: 42 }, /task/],
        ["run_task", { task: "x", budgets: { max_turns: -1 } }, /max_turns/],
        ["run_task", { task: "x", budgets: { max_dollars: 5 } }, /max_dollars|unrecognized/i],
        ["run_task", { task: "x", variables: { _hidden: "v" } }, /_hidden.*identifier/],
        ["run_task", { task: "x", variables: { rlm: "v" } }, /relm's Python API/],
        ["start_task", { task: "x", cwd: "/no/such/dir" }, /does not exist/],
        ["task_status", { session_id: "zzzzzzzz" }, /No session matches/],
        ["task_result", { session_id: "zzzz", wait_seconds: -1 }, /wait_seconds/],
        ["send_message", { session_id: "zzzzzzzz", text: "hi" }, /No session matches/],
        ["no_such_tool", {}, /no_such_tool/],
      ];
      for (const [name, args, message] of cases) {
        const result = await call(client, name, args);
        expect(result.isError, `${name} ${JSON.stringify(args)}: ${text(result)}`).toBe(true);
        expect(text(result)).toMatch(message);
      }
      // Still serving, and nothing was started.
      expect((await client.listTools()).tools.length).toBe(6);
      expect(rig.model.requests.length).toBe(0);
    } finally {
      await close();
    }
  });

  it("says how to configure a model when none is", async () => {
    const rig = await startRig("openai", { script: [{ text: "unused" }] }, { env: { RELM_MODEL: "" } });
    const { client, close } = await serve(rig);
    try {
      const result = await call(client, "run_task", { task: "anything" });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("relm login");
    } finally {
      await close();
    }
  });
});
