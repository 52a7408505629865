// A resumed session rebuilds the conversation from its journal: the request it sends must extend, byte for
// byte, the one the model saw last before the session stopped (the provider's prompt cache hits, and the
// model reads the history it acted on). The scripted model over HTTP, a real kernel.
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

describe("the request a resumed session sends", () => {
  it("repeats a cell's answer as the model read it, a failed shell command's status line included", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "print('before')\n!exit 3" }, { text: "the command failed" }, { text: "resumed" }],
    });
    const first = await runRelm(["run", "run the check"], { env: rig.env, cwd: rig.cwd });
    expect(first.code, first.stderr).toBe(0);
    const live = rig.model.requests[1]?.rawBody ?? "";
    expect(live).toContain("[relm] A shell command in this cell exited with status 3.");
    const id = String(onlyJournal(rig.home).lines[0]?.id);

    const resumed = await runRelm(["run", "--resume", id, "go on"], { env: rig.env, cwd: rig.cwd });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe("resumed");
    const again = rig.model.requests[2]?.rawBody ?? "";
    // Everything up to the end of the last request's messages, then the answer and the new message.
    expect(again.startsWith(live.slice(0, live.lastIndexOf("]")))).toBe(true);
  });
});
