// What `relm acp` sends down the editor's pipes, driven by the ACP SDK's own client: a long-printing
// cell's live updates stay small (ACP v1 replaces a tool call's content with each update, so each one
// carries a bounded tail, and the whole output comes once, at the end); and once it exits, nothing it
// started holds the editor's stderr, which the editor reads to its end.

import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { McpServer } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { LIVE_TAIL_CHARS } from "../../../src/acp/updates.js";
import { initialize, outputText, startEditor, updatesOf } from "../../support/acp-editor.js";
import { runRelm } from "../../support/cli.js";
import { EVERYTHING } from "../../support/mcp.js";
import { byTask } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { poll, pythonWaitForFile, until } from "../../support/wait.js";

const startRig = useRigs();

describe("relm acp output", () => {
  it("a cell printing 17 KB sends live updates of a bounded tail, and its whole output once at the end", async () => {
    let release = "";
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: print a lot": [
          () => ({
            code:
              'for i in range(250):\n    print(f"line {i:04d} " + "x" * 60)\n' +
              `import sys\nsys.stdout.flush()\n${pythonWaitForFile(release)}\nprint("after release")`,
          }),
          { text: "printed" },
        ],
      }),
    });
    release = join(rig.cwd, "release");
    const editor = startEditor(rig);
    try {
      await initialize(editor);
      const { sessionId: id } = await editor.conn.agent.request("session/new", {
        cwd: rig.cwd,
        mcpServers: [],
      });
      const prompted = editor.conn.agent.request("session/prompt", {
        sessionId: id,
        prompt: [{ type: "text", text: "TASK: print a lot" }],
      });
      prompted.catch(() => {});
      // The cell waits, after its 250 lines (17 500 characters, within the live stream's cap), until the editor has shown the last of them live.
      await until(
        () =>
          updatesOf(editor, id, "tool_call_update").some(
            (u) => !u.status && outputText(u.content).includes("line 0249"),
          )
            ? true
            : undefined,
        40_000,
      );
      writeFileSync(release, "");
      expect((await prompted).stopReason, editor.stderr()).toBe("end_turn");

      const call = updatesOf(editor, id, "tool_call")[0];
      const updates = updatesOf(editor, id, "tool_call_update").filter(
        (u) => u.toolCallId === call?.toolCallId,
      );
      const live = updates.filter((u) => !u.status);
      expect(live.length).toBeGreaterThan(0);
      for (const u of live) {
        // The code (about 200 characters) and a tail, never all that was printed so far.
        expect(JSON.stringify(u.content).length).toBeLessThan(LIVE_TAIL_CHARS + 1000);
        expect(outputText(u.content)).not.toContain("line 0000");
      }
      const shown = live.map((u) => outputText(u.content)).find((t) => t.includes("line 0249")) ?? "";
      expect(shown).toMatch(
        /^`+\n… 210 earlier line\(s\) not shown while it runs \(all of it when the cell ends\)\nline 0210 /,
      );
      const end = updates.at(-1);
      expect(end?.status).toBe("completed");
      // The end carries the whole journaled output.
      const whole = outputText(end?.content);
      expect(whole).toContain("line 0000");
      expect(whole).toContain("after release");
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("once relm acp exits, its stderr reaches end of file: no host, kernel or server it started holds it", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: leave things running": [
          {
            // A sub-agent, the editor's MCP server and a background process of the kernel: all outlive the turn.
            code:
              "import subprocess\nsubprocess.Popen(['sleep', '300'])\n" +
              "print(mcp.everything.echo(message='hi'))\nprint(rlm('TASK: child'))",
          },
          { text: "left running" },
        ],
        "TASK: child": [{ code: "print(2)" }, { text: "child done" }],
      }),
    });
    const editor = startEditor(rig);
    try {
      await initialize(editor);
      const pipe = readlinkSync(`/proc/${editor.child.pid}/fd/2`);
      const servers: McpServer[] = [
        { name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] },
      ];
      const { sessionId } = await editor.conn.agent.request("session/new", {
        cwd: rig.cwd,
        mcpServers: servers,
      });
      const done = await editor.conn.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "TASK: leave things running" }],
      });
      expect(done.stopReason, editor.stderr()).toBe("end_turn");
      // The session's host, its kernels and the MCP server keep running after the editor goes.
      await editor.close();
      const ended = await poll(() => (editor.stderrEnded() ? true : undefined), 20_000);
      expect(ended, `still holding relm acp's stderr:\n${holdersOf(pipe).join("\n")}`).toBe(true);
      expect((await runRelm(["agents", "--json"], { env: rig.env })).stdout).toContain(sessionId);
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });
});

/** The processes (pid and command line) that have `target` (e.g. `pipe:[123]`) open. */
function holdersOf(target: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) !== target) continue;
        found.push(`${pid}: ${readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")}`);
      }
    } catch {
      // a process that ended meanwhile, or one we may not look into
    }
  }
  return found;
}
