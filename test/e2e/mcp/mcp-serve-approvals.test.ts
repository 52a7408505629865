// Approvals through `relm mcp serve` (docs/sandbox.md, "Approvals"): a request of the task's kernel
// waiting for a person is asked of an MCP client that declared elicitation (`elicitation/create`, with
// the reason and the exact command or host), and its choice is the answer, journaled as from "mcp"; the
// model reads a refusal as request.Denied. A client without the capability is not asked: the request
// waits as it would with nobody attached. The MCP SDK's own Client over real stdio, the scripted model,
// real kernels under bubblewrap (workspace mode).
import { existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { SessionClient } from "../../../src/host/client.js";
import { RELM_BIN, runRelm } from "../../support/cli.js";
import { readJournalLines } from "../../support/journal.js";
import { echoLastCell } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();
const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** `relm mcp serve --mode workspace` and a client; `answer` given: the client can answer elicitations. */
async function serve(
  rig: Rig,
  answer?: (params: ElicitRequest["params"], signal: AbortSignal) => ElicitResult | Promise<ElicitResult>,
) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(rig.env)) if (v !== undefined) env[k] = v;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [RELM_BIN, "mcp", "serve", "--mode", "workspace"],
    env,
    cwd: rig.cwd,
    stderr: "pipe",
  });
  const client = new Client(
    { name: "relm-test", version: "1.0.0" },
    answer ? { capabilities: { elicitation: {} } } : {},
  );
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) =>
      answer(request.params, extra.signal),
    );
  await client.connect(transport);
  return client;
}

const RUN_THEN_NET = [
  'r = request("run", "see the host", cmd="echo from-mcp-client")',
  "print('GRANTED', r.output.strip())",
  "try:",
  '    request("net", "fetch data", host="data.example.org", port=443)',
  "except request.Denied as e:",
  "    print('DENIED', e)",
].join("\n");

const text = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("\n");

describe.skipIf(!linux)("approvals through relm mcp serve", () => {
  it("asks a client with elicitation; allow runs the command, deny reaches the model as request.Denied", async () => {
    const rig = await startRig("openai", { script: [{ code: RUN_THEN_NET }, echoLastCell] });
    const asked: ElicitRequest["params"][] = [];
    const client = await serve(rig, (params) => {
      asked.push(params);
      return params.message.includes("echo from-mcp-client")
        ? { action: "accept", content: { answer: "once" } }
        : { action: "decline" };
    });
    try {
      const result = (await client.callTool({ name: "run_task", arguments: { task: "go" } }, undefined, {
        timeout: 120_000,
      })) as ToolResult;
      expect(result.isError, text(result)).toBeFalsy();
      const id = result.structuredContent?.session_id as string;
      expect(asked).toHaveLength(2);
      const first = asked[0] as ElicitRequest["params"] & { requestedSchema: Record<string, unknown> };
      expect(first.message).toContain("run this command outside the sandbox: echo from-mcp-client");
      expect(first.message).toContain("reason: see the host");
      expect(first.requestedSchema).toMatchObject({
        type: "object",
        required: ["answer"],
        properties: {
          answer: {
            type: "string",
            enum: ["once", "session", "project", "deny"],
            enumNames: ["allow once", "allow for this session", "always for this project", "deny"],
          },
        },
      });
      expect(asked[1]?.message).toContain("reach this network host: data.example.org:443");
      expect(asked[1]?.message).toContain("reason: fetch data");
      // The model saw the command's output and the refusal (its last cell, echoed as the answer).
      expect(text(result)).toContain("GRANTED from-mcp-client");
      expect(text(result)).toContain(
        "DENIED request('net') for data.example.org was denied by the user (mcp): declined through the MCP client",
      );
      const answers = readJournalLines(rig.home, id).filter((e) => e.type === "approval_answer");
      expect(answers.map((a) => [a.allow, a.by, a.scope])).toEqual([
        [true, "mcp", "once"],
        [false, "mcp", "once"],
      ]);
    } finally {
      await client.close();
    }
  });

  it("a client without elicitation is not asked: the request waits ('needs approval')", async () => {
    const rig = await startRig("openai", { script: [{ code: RUN_THEN_NET }, echoLastCell] });
    const client = await serve(rig);
    try {
      const started = (await client.callTool({
        name: "start_task",
        arguments: { task: "go" },
      })) as ToolResult;
      const id = started.structuredContent?.session_id as string;
      await until(
        () => (readJournalLines(rig.home, id).some((l) => l.type === "approval_request") ? true : undefined),
        60_000,
      );
      // A tool call follows the session while the request waits: nothing asks the client, nobody answers.
      const followed = (await client.callTool(
        { name: "task_result", arguments: { session_id: id, wait_seconds: 2 } },
        undefined,
        { timeout: 120_000 },
      )) as ToolResult;
      expect(followed.structuredContent?.status).toBe("running");
      expect(readJournalLines(rig.home, id).some((l) => l.type === "approval_answer")).toBe(false);
      const agents = await runRelm(["agents"], { env: rig.env, cwd: rig.cwd });
      expect(agents.stdout).toMatch(new RegExp(`${id}\\s+needs approval`));
    } finally {
      await client.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("an interrupt while the client is asked withdraws the request and cancels the elicitation", async () => {
    const cell = [
      "try:",
      '    request("run", "look around", cmd="echo never-ran")',
      "except KeyboardInterrupt:",
      "    print('INTERRUPTED WHILE WAITING')",
      "    raise",
    ].join("\n");
    const rig = await startRig("openai", { script: [{ code: cell }, echoLastCell] });
    let asked = false;
    let cancelled = false;
    // The only question, never answered: it stays open until relm takes it back (the SDK's Client cannot
    // cancel a server request numbered 0; relm's first request to a client is a ping, so this is not it).
    const client = await serve(rig, (_params, signal) => {
      asked = true;
      return new Promise<ElicitResult>((resolve) =>
        signal.addEventListener("abort", () => {
          cancelled = true;
          resolve({ action: "cancel" });
        }),
      );
    });
    try {
      const started = (await client.callTool({
        name: "start_task",
        arguments: { task: "go" },
      })) as ToolResult;
      const id = started.structuredContent?.session_id as string;
      const result = client.callTool(
        { name: "task_result", arguments: { session_id: id, wait_seconds: 120 } },
        undefined,
        { timeout: 180_000 },
      ) as Promise<ToolResult>;
      await until(() => (asked ? true : undefined), 60_000);
      const other = (await SessionClient.connect(rig.home, id)) as SessionClient;
      try {
        await other.call("interrupt", {});
      } finally {
        other.close();
      }
      await until(() => (cancelled ? true : undefined), 60_000);
      expect((await result).structuredContent?.status).toBe("interrupted");
      const lines = readJournalLines(rig.home, id);
      expect(lines.filter((e) => e.type === "approval_answer")).toEqual([
        expect.objectContaining({ allow: false, withdrawn: true }),
      ]);
      const output = lines.find((e) => e.type === "cell_output")?.output;
      expect(output).toContain("INTERRUPTED WHILE WAITING");
    } finally {
      await client.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });
});
