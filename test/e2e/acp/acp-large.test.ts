// `relm acp` given a prompt far larger than a message may be (a 30 MB log pasted into the editor): the
// text becomes a kernel variable and the prompt is answered; one too large even for that is refused
// clearly; and either way the thread goes on working.
import { describe, expect, it } from "vitest";
import { initialize, startEditor, updatesOf } from "../../support/acp-editor.js";
import { runRelm } from "../../support/cli.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const MB = 1000 * 1000;

describe("relm acp: a huge prompt", () => {
  it("a 30 MB prompt becomes a kernel variable and is answered; a 40 MB one is refused; the thread goes on", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "print(len(prompt_1), prompt_1[:9], prompt_1[-4:])" },
        (ctx) => ({ text: `measured: ${ctx.lastToolResult?.trim()}` }),
        { text: "still here" },
      ],
    });
    const editor = startEditor(rig);
    try {
      await initialize(editor);
      const { sessionId } = await editor.conn.agent.request("session/new", { cwd: rig.cwd, mcpServers: [] });
      const answers = () =>
        updatesOf(editor, sessionId, "agent_message_chunk")
          .map((c) => (c.content as { text: string }).text)
          .join("");

      const huge = `TASK: big ${"z".repeat(30 * MB)} end`;
      const first = await editor.conn.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: huge }],
      });
      expect(first.stopReason, editor.stderr()).toBe("end_turn");
      expect(answers()).toContain(`measured: ${huge.length} TASK: big  end`);
      // The model was shown the start and the end, not 30 MB.
      const firstBody = rig.model.requests[0]?.rawBody ?? "";
      expect(firstBody.length).toBeLessThan(64 * 1024);
      expect(firstBody).toContain("The whole of it is in the kernel variable prompt_1");

      const tooLarge = editor.conn.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "w".repeat(40 * MB) }],
      });
      await expect(tooLarge).rejects.toThrow(/variable prompt_2 is too large: 40,000,000 bytes/);
      // Past what one message may be at all: refused alone, the connection and the thread stay.
      const overLimit = editor.conn.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "v".repeat(70 * MB) }],
      });
      await expect(overLimit).rejects.toThrow(/request too large: one message may be at most 64 MiB/);

      const later = await editor.conn.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "and now?" }],
      });
      expect(later.stopReason, editor.stderr()).toBe("end_turn");
      expect(answers()).toContain("still here");
      expect(rig.model.requests).toHaveLength(3);
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
      await editor.close();
    }
  }, 180_000);
});
