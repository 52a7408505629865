// `relm acp` driven by the ACP SDK's own client connection over real stdio, with the scripted model and
// real kernels: what Zed or another editor would see.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  client as acpClient,
  type ClientConnection,
  ndJsonStream,
  PROTOCOL_VERSION,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { RELM_BIN, runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { byTask } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { pythonWaitForFile, until } from "../../support/wait.js";

const startRig = useRigs();

interface Editor {
  conn: ClientConnection;
  updates: SessionNotification[];
  stderr: () => string;
  /** Ends the agent process (as an editor closing does) and waits for it to exit. */
  close(): Promise<void>;
}

function startEditor(rig: Rig, env: NodeJS.ProcessEnv = rig.env): Editor {
  const child: ChildProcess = spawn(process.execPath, [RELM_BIN, "acp"], {
    env,
    cwd: rig.cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
  );
  const updates: SessionNotification[] = [];
  const conn = acpClient({ name: "relm-test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .connect(stream);
  return {
    conn,
    updates,
    stderr: () => stderr,
    close: async () => {
      conn.close();
      child.stdin?.end();
      await exited;
    },
  };
}

async function initialize(editor: Editor) {
  return editor.conn.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "test", version: "1" },
  });
}

function of<K extends SessionUpdate["sessionUpdate"]>(
  editor: Editor,
  sessionId: string,
  kind: K,
): Extract<SessionUpdate, { sessionUpdate: K }>[] {
  return editor.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
    .map((n) => n.update as Extract<SessionUpdate, { sessionUpdate: K }>);
}

function contentText(content: unknown): string {
  return ((content ?? []) as { content?: { text?: string } }[]).map((c) => c.content?.text ?? "").join("\n");
}

/** A cell's output in its tool call (the content after the code block). */
function outputText(content: unknown): string {
  return contentText(((content ?? []) as unknown[]).slice(1));
}

describe("relm acp", () => {
  it("initialize, new session, prompt: streamed chunks, one execute tool call per cell with live output, end of turn", async () => {
    let release = "";
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: two cells": [
          // "second" waits until the test has seen "first" arrive live (a sleep between them raced the editor).
          () => ({ code: `print('first', flush=True)\n${pythonWaitForFile(release)}\nprint('second')` }),
          { code: "1/0" },
          { text: "Both cells ran; the second one divided by zero." },
        ],
      }),
    });
    release = join(rig.cwd, "print-second");
    const editor = startEditor(rig);
    try {
      const init = await initialize(editor);
      expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
      expect(init.agentCapabilities?.loadSession).toBe(true);
      expect(init.agentInfo?.name).toBe("relm");
      expect(init.authMethods?.map((m) => m.id)).toContain("relm-login");

      const created = await editor.conn.agent.request("session/new", { cwd: rig.cwd, mcpServers: [] });
      const id = created.sessionId;
      expect(id).toMatch(/^[0-9a-z]{8}$/);
      expect(created.modes?.availableModes.map((m) => m.id)).toEqual(["normal", "autonomous"]);
      const commands = await until(() => of(editor, id, "available_commands_update")[0]);
      expect(commands.availableCommands.map((c) => c.name)).toContain("goal");

      const prompted = editor.conn.agent.request("session/prompt", {
        sessionId: id,
        prompt: [{ type: "text", text: "TASK: two cells" }],
      });
      prompted.catch(() => {}); // awaited below; a failure meanwhile must not count as unhandled
      await until(() =>
        of(editor, id, "tool_call_update").some((u) => outputText(u.content).includes("first"))
          ? true
          : undefined,
      );
      writeFileSync(release, "");
      const response = await prompted;
      expect(response.stopReason, editor.stderr()).toBe("end_turn");

      const chunks = of(editor, id, "agent_message_chunk");
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.map((c) => (c.content as { text: string }).text).join("")).toContain(
        "Both cells ran; the second one divided by zero.",
      );

      const calls = of(editor, id, "tool_call");
      expect(calls.length).toBe(2);
      expect(calls.every((c) => c.kind === "execute" && c.status === "in_progress")).toBe(true);
      expect(contentText(calls[0]?.content)).toContain("print('first', flush=True)");
      expect(calls[1]?.title).toBe("1/0");

      const updatesOf = (callId: string) =>
        of(editor, id, "tool_call_update").filter((u) => u.toolCallId === callId);
      const first = updatesOf(calls[0]?.toolCallId as string);
      // Live: "first" is shown while the cell still runs, before "second" exists.
      expect(
        first.some(
          (u) =>
            !u.status && outputText(u.content).includes("first") && !outputText(u.content).includes("second"),
        ),
      ).toBe(true);
      expect(first.at(-1)?.status).toBe("completed");
      expect(outputText(first.at(-1)?.content)).toMatch(/first\s+second/);
      const second = updatesOf(calls[1]?.toolCallId as string);
      expect(second.at(-1)?.status).toBe("failed");
      expect(outputText(second.at(-1)?.content)).toContain("ZeroDivisionError");
      // The prompt itself is not echoed back to the editor that sent it.
      expect(of(editor, id, "user_message_chunk")).toEqual([]);

      // A normal relm session: listed, its host still serving it for the next prompt.
      const agents = await runRelm(["agents", "--json"], { env: rig.env });
      expect(agents.stdout).toContain(`"id":"${id}"`);
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("session/cancel during a long cell stops it, not waiting for the cell", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: sleep long": [
          { code: "import time\nprint('sleeping', flush=True)\ntime.sleep(120)" },
          { text: "should not be reached in this turn" },
        ],
      }),
    });
    const editor = startEditor(rig);
    try {
      await initialize(editor);
      const { sessionId: id } = await editor.conn.agent.request("session/new", {
        cwd: rig.cwd,
        mcpServers: [],
      });
      const prompt = editor.conn.agent.request("session/prompt", {
        sessionId: id,
        prompt: [{ type: "text", text: "TASK: sleep long" }],
      });
      const call = await until(() => of(editor, id, "tool_call")[0], 60_000);
      // The cell is running (it has printed) before the cancel is sent.
      await until(() =>
        of(editor, id, "tool_call_update").some((u) => outputText(u.content).includes("sleeping"))
          ? true
          : undefined,
      );
      // The cell sleeps 120 s, longer than this test may take: the cancel interrupts it, not waits.
      await editor.conn.agent.notify("session/cancel", { sessionId: id });
      const response = await prompt;
      expect(response.stopReason).toBe("cancelled");
      const last = of(editor, id, "tool_call_update")
        .filter((u) => u.toolCallId === call.toolCallId)
        .at(-1);
      expect(last?.status).toBe("failed");
      expect(outputText(last?.content)).toContain("KeyboardInterrupt");
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("session/cancel also cancels running sub-agents", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: wait for a child": [
          { code: "r = rlm('TASK: slow child')\nprint(r)" },
          { text: "not this turn" },
        ],
        "TASK: slow child": [{ code: "import time\nprint('child sleeping', flush=True)\ntime.sleep(120)" }],
      }),
    });
    const editor = startEditor(rig);
    try {
      await initialize(editor);
      const { sessionId: id } = await editor.conn.agent.request("session/new", {
        cwd: rig.cwd,
        mcpServers: [],
      });
      const prompt = editor.conn.agent.request("session/prompt", {
        sessionId: id,
        prompt: [{ type: "text", text: "TASK: wait for a child" }],
      });
      const child = await until(
        () => of(editor, id, "tool_call").find((c) => c.toolCallId.startsWith("agent:")),
        60_000,
      );
      // The child's cell has started (its step is in the child's tool call).
      await until(
        () =>
          of(editor, id, "tool_call_update").some(
            (u) => u.toolCallId === child.toolCallId && contentText(u.content).includes("▸ import time"),
          )
            ? true
            : undefined,
        60_000,
      );
      // The child sleeps 120 s, longer than this test may take: the cancel does not wait for it.
      await editor.conn.agent.notify("session/cancel", { sessionId: id });
      expect((await prompt).stopReason).toBe("cancelled");
      const end = of(editor, id, "tool_call_update")
        .filter((u) => u.toolCallId === child.toolCallId)
        .at(-1);
      expect(end?.status).toBe("failed");
      expect(contentText(end?.content)).toContain("cancelled");
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("session/load of an interrupted session replays its history, then resumes it at the next prompt", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: long job": [
          { code: "progress = 41" },
          // The snapshot after the first cell is taken while the model answers, and given up if the next
          // cell comes first: the model answers once it is on disk, so that the journal has one to resume.
          async () => {
            await until(() =>
              onlyJournal(rig.home).lines.some((l) => l.type === "snapshot") ? true : undefined,
            );
            return { code: "import time\ntime.sleep(120)" };
          },
          (ctx) => ({
            code: `print('resumed with progress', progress + 1)  # ${ctx.lastToolResult?.length}`,
          }),
          (ctx) => ({ text: `final: ${ctx.lastToolResult?.trim()}` }),
        ],
      }),
    });
    const first = startEditor(rig);
    let id = "";
    try {
      await initialize(first);
      id = (await first.conn.agent.request("session/new", { cwd: rig.cwd, mcpServers: [] })).sessionId;
      void first.conn.agent
        .request("session/prompt", { sessionId: id, prompt: [{ type: "text", text: "TASK: long job" }] })
        .catch(() => undefined);
      // The first cell's variable is snapshotted; the second cell is running when the host dies.
      await until(() => (of(first, id, "tool_call").length === 2 ? true : undefined), 60_000);
    } finally {
      await first.close();
    }
    const state = JSON.parse(readFileSync(join(onlyJournal(rig.home).dir, "state.json"), "utf8")) as {
      pid: number;
    };
    process.kill(state.pid, "SIGKILL");
    await until(async () => {
      const agents = await runRelm(["agents", "--json"], { env: rig.env });
      return agents.stdout.includes('"status":"interrupted"') ? true : undefined;
    });

    const editor = startEditor(rig);
    try {
      await initialize(editor);
      const loaded = await editor.conn.agent.request("session/load", {
        sessionId: id,
        cwd: rig.cwd,
        mcpServers: [],
      });
      expect(loaded.modes?.currentModeId).toBe("normal");
      // History arrived before the answer to session/load: the person's message and both cells.
      const users = of(editor, id, "user_message_chunk").map((u) => (u.content as { text: string }).text);
      expect(users.join("\n")).toContain("TASK: long job");
      const calls = of(editor, id, "tool_call");
      expect(calls.map((c) => contentText(c.content))).toEqual([
        expect.stringContaining("progress = 41"),
        expect.stringContaining("time.sleep(120)"),
      ]);
      expect(of(editor, id, "tool_call_update")[0]?.status).toBe("completed");

      const response = await editor.conn.agent.request("session/prompt", {
        sessionId: id,
        prompt: [{ type: "text", text: "Continue where you left off." }],
      });
      expect(response.stopReason, editor.stderr()).toBe("end_turn");
      const answer = of(editor, id, "agent_message_chunk")
        .map((c) => (c.content as { text: string }).text)
        .join("");
      expect(answer).toContain("final: resumed with progress 42");
      expect(onlyJournal(rig.home).lines.some((l) => l.type === "resumed")).toBe(true);
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("shows sub-agents as tool calls with their steps and status; slash commands and modes act on the host", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: parent": [
          { code: "r = rlm('TASK: child job')\nprint('child said', r)" },
          { text: "parent done" },
        ],
        "TASK: child job": [{ code: "print('child step')" }, { text: "child result" }],
      }),
    });
    const editor = startEditor(rig);
    try {
      await initialize(editor);
      const { sessionId: id } = await editor.conn.agent.request("session/new", {
        cwd: rig.cwd,
        mcpServers: [],
      });
      const goal = await editor.conn.agent.request("session/prompt", {
        sessionId: id,
        prompt: [{ type: "text", text: '/goal "ship the parser"' }],
      });
      expect(goal.stopReason).toBe("end_turn");
      await until(() => of(editor, id, "plan")[0]);
      expect(of(editor, id, "plan")[0]?.entries[0]).toMatchObject({
        content: "ship the parser",
        status: "in_progress",
      });

      await editor.conn.agent.request("session/set_mode", { sessionId: id, modeId: "autonomous" });
      await editor.conn.agent.request("session/prompt", {
        sessionId: id,
        prompt: [{ type: "text", text: "/autonomous status" }],
      });
      expect(
        of(editor, id, "agent_message_chunk").map((c) => (c.content as { text: string }).text),
      ).toContain("autonomous: on — continues until done() is called or a budget is spent");
      await editor.conn.agent.request("session/set_mode", { sessionId: id, modeId: "normal" });

      const response = await editor.conn.agent.request("session/prompt", {
        sessionId: id,
        prompt: [{ type: "text", text: "TASK: parent" }],
      });
      expect(response.stopReason, editor.stderr()).toBe("end_turn");
      const child = of(editor, id, "tool_call").find((c) => c.toolCallId.startsWith("agent:"));
      expect(child?.kind).toBe("think");
      expect(child?.status).toBe("in_progress");
      const end = of(editor, id, "tool_call_update")
        .filter((u) => u.toolCallId === child?.toolCallId)
        .at(-1);
      expect(end?.status).toBe("completed");
      expect(contentText(end?.content)).toContain("▸ print('child step')");
      expect(contentText(end?.content)).toContain("result: ");
      // The child's own cell is a step of its tool call, not a tool call of the session.
      expect(of(editor, id, "tool_call").filter((c) => c.kind === "execute").length).toBe(1);
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("asks the editor to sign in when no model is configured", async () => {
    const rig = await startRig("openai", { script: [{ text: "unused" }] });
    const editor = startEditor(rig, { ...rig.env, RELM_MODEL: "" });
    try {
      await initialize(editor);
      await expect(
        editor.conn.agent.request("session/new", { cwd: rig.cwd, mcpServers: [] }),
      ).rejects.toMatchObject({ code: -32000 });
      await expect(
        editor.conn.agent.request("session/new", { cwd: "relative/dir", mcpServers: [] }),
      ).rejects.toBeDefined();
    } finally {
      await editor.close();
    }
  });
});
