// An editor over ACP gets the project's custom commands (.relm/commands/) among its available commands,
// and the agent's plan() as plan updates.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { initialize, startEditor, updatesOf } from "../../support/acp-editor.js";
import { runRelm } from "../../support/cli.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

describe("relm acp: custom commands and the plan", () => {
  it("lists /NAME from .relm/commands, sends its expanded text, and sends plan() as a plan update", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: 'plan(["greet", "wave"])\nplan(done=1, doing=2)' },
        (ctx) => ({ text: `answered: ${ctx.lastUserText ?? ""}` }),
      ],
    });
    const dir = join(rig.cwd, ".relm", "commands");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "hi.md"), "---\ndescription: Greet someone\n---\nSay hello to $1");
    const editor = startEditor(rig);
    try {
      await initialize(editor);
      const { sessionId: id } = await editor.conn.agent.request("session/new", {
        cwd: rig.cwd,
        mcpServers: [],
      });
      const listed = await until(() => updatesOf(editor, id, "available_commands_update")[0]);
      expect(listed.availableCommands).toContainEqual({ name: "hi", description: "Greet someone" });
      const response = await editor.conn.agent.request("session/prompt", {
        sessionId: id,
        prompt: [{ type: "text", text: "/hi Ada" }],
      });
      expect(response.stopReason, editor.stderr()).toBe("end_turn");
      expect(rig.model.requests[0]?.rawBody).toContain("Say hello to Ada");
      const plans = updatesOf(editor, id, "plan");
      expect(plans.at(-1)?.entries).toEqual([
        { content: "greet", priority: "medium", status: "completed" },
        { content: "wave", priority: "medium", status: "in_progress" },
      ]);
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });
});
