// An approval round trip over ACP (docs/sandbox.md, "Approvals"): the kernel's request reaches the
// editor as session/request_permission (the official SDK's client, over relm acp's real stdio), with
// the reason and the exact command; the editor's choice is the answer, journaled as from "acp"; a
// question answered elsewhere or withdrawn is taken back ($/cancel_request, which the SDK's client turns
// into an abort of its handler's signal).
import { existsSync } from "node:fs";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { SessionClient } from "../../../src/host/client.js";
import { initialize, outputText, startEditor, updatesOf } from "../../support/acp-editor.js";
import { runRelm } from "../../support/cli.js";
import { readJournalLines } from "../../support/journal.js";
import { echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();
const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");

describe.skipIf(!linux)("approvals over ACP", () => {
  it("asks the editor with session/request_permission and acts on its choice", async () => {
    const rig = await startRig("openai", {
      script: [
        {
          code: [
            'r = request("run", "see the host", cmd="echo from-editor")',
            "print('GRANTED', r.output.strip())",
            "try:",
            '    request("net", "fetch data", host="data.example.org", port=443)',
            "except request.Denied as e:",
            "    print('DENIED', e)",
          ].join("\n"),
        },
        echoLastCell,
      ],
    });
    const asked: RequestPermissionRequest[] = [];
    const editor = startEditor(rig, { ...rig.env, RELM_MODE: "workspace" }, (params) => {
      asked.push(params);
      const choice = params.toolCall.title?.includes("echo from-editor") ? "once" : "deny";
      return { outcome: { outcome: "selected", optionId: choice } };
    });
    try {
      await initialize(editor);
      const { sessionId: id } = await editor.conn.agent.request("session/new", {
        cwd: rig.cwd,
        mcpServers: [],
      });
      const done = await editor.conn.agent.request("session/prompt", {
        sessionId: id,
        prompt: [{ type: "text", text: "go" }],
      });
      expect(done.stopReason).toBe("end_turn");
      expect(asked).toHaveLength(2);
      expect(asked[0]).toMatchObject({
        sessionId: id,
        toolCall: {
          title: "run this command outside the sandbox: echo from-editor",
          kind: "execute",
          rawInput: { request: "run", reason: "see the host", subject: "echo from-editor" },
        },
      });
      expect(asked[0]?.options.map((o) => [o.optionId, o.kind])).toEqual([
        ["once", "allow_once"],
        ["session", "allow_always"],
        ["project", "allow_always"],
        ["deny", "reject_once"],
      ]);
      expect(asked[1]?.toolCall).toMatchObject({
        kind: "fetch",
        title: "reach this network host: data.example.org:443",
      });
      const outputs = updatesOf(editor, id, "tool_call_update")
        .map((u) => outputText(u.content))
        .join("\n");
      expect(outputs).toContain("GRANTED from-editor");
      expect(outputs).toContain("DENIED request('net') for data.example.org was denied by the user (acp)");
      const answers = await until(() => {
        const l = readJournalLines(rig.home, id).filter((e) => e.type === "approval_answer");
        return l.length === 2 ? l : undefined;
      });
      expect(answers.map((a) => [a.allow, a.by, a.scope])).toEqual([
        [true, "acp", "once"],
        [false, "acp", "once"],
      ]);
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("takes the editor's question back when another front end answers it, or an interrupt withdraws it", async () => {
    const cell = [
      'r = request("run", "first look", cmd="echo answered-elsewhere")',
      "print('FIRST', r.output.strip())",
      "try:",
      '    request("run", "second look", cmd="echo never-ran")',
      "except KeyboardInterrupt:",
      "    print('INTERRUPTED WHILE WAITING')",
      "    raise",
    ].join("\n");
    const rig = await startRig("openai", { script: [{ code: cell }, echoLastCell] });
    const asked: string[] = [];
    const takenBack: string[] = [];
    // The editor never answers: each question stays open until relm takes it back.
    const editor = startEditor(rig, { ...rig.env, RELM_MODE: "workspace" }, (params, signal) => {
      const title = params.toolCall.title ?? "";
      asked.push(title);
      return new Promise((resolve) =>
        signal.addEventListener("abort", () => {
          takenBack.push(title);
          resolve({ outcome: { outcome: "cancelled" } });
        }),
      );
    });
    try {
      await initialize(editor);
      const { sessionId: id } = await editor.conn.agent.request("session/new", {
        cwd: rig.cwd,
        mcpServers: [],
      });
      const prompt = editor.conn.agent
        .request("session/prompt", { sessionId: id, prompt: [{ type: "text", text: "go" }] })
        .catch(() => undefined);
      await until(() => (asked.length === 1 ? true : undefined), 60_000);
      const other = (await SessionClient.connect(rig.home, id)) as SessionClient;
      try {
        // Answered in another front end (say the terminal UI): the editor's question goes away.
        const waiting = await until(async () => (await other.call("approvals")).pending[0], 30_000);
        await other.call("approve", { id: waiting.id, answer: "once", from: "ui" });
        await until(() => (takenBack.length === 1 ? true : undefined), 60_000);
        // The second question, then an interrupt: withdrawn, and taken back too.
        await until(() => (asked.length === 2 ? true : undefined), 60_000);
        await other.call("interrupt", {});
        await until(() => (takenBack.length === 2 ? true : undefined), 60_000);
      } finally {
        other.close();
      }
      await prompt;
      expect(asked).toEqual([
        "run this command outside the sandbox: echo answered-elsewhere",
        "run this command outside the sandbox: echo never-ran",
      ]);
      expect(takenBack).toEqual(asked);
      const answers = readJournalLines(rig.home, id).filter((e) => e.type === "approval_answer");
      expect(answers.map((a) => [a.allow, a.by, a.withdrawn ?? false])).toEqual([
        [true, "ui", false],
        [false, expect.any(String), true],
      ]);
      const output = readJournalLines(rig.home, id).find((e) => e.type === "cell_output")?.output;
      expect(output).toContain("FIRST answered-elsewhere");
      expect(output).toContain("INTERRUPTED WHILE WAITING");
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });
});
