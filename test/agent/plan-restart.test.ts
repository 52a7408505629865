// plan() keeps its steps in the kernel; a kernel started again (after a crash, a resume, a mode switch)
// began with none, so plan(done=2) raised "no step 2 (steps are numbered 1 to 0)" while every front end
// still showed the list. The host keeps the last list and a new kernel asks for it (plan.get).
import { describe, expect, it } from "vitest";
import { rebuildConversation } from "../../src/agent/core/resume.js";
import type { JournalEvent } from "../../src/session/types.js";
import { ofTypes, useSessions } from "../support/in-process.js";
import { byTask, echoLastCell } from "../support/router.js";
import { useRigs } from "../support/scripted.js";

const startRig = useRigs();
const open = useSessions();

describe("plan() across kernels", () => {
  it("a kernel started again after a crash carries on with the plan the session had", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: plan": [
          { code: 'plan(["read", "fix", "test"])\nplan(done=1)' },
          { code: "import os\nos._exit(3)" },
          { code: "plan(done=2, doing=3)\nprint(plan)" },
          echoLastCell,
        ],
      }),
    });
    const { session, lines } = await open(rig);

    const outcome = await session.run("ROOT: plan");

    expect(outcome).toMatchObject({
      status: "done",
      text: "plan 2/3:\n[x] 1. read\n[x] 2. fix\n[~] 3. test",
    });
    const kernel = ofTypes(lines(), "kernel").map((l) => l.event);
    expect(kernel).toContain("restarted");
    expect(ofTypes(lines(), "plan").at(-1)).toMatchObject({
      steps: [
        { text: "read", status: "done" },
        { text: "fix", status: "done" },
        { text: "test", status: "doing" },
      ],
    });
  });

  it("a resumed session's plan is the last one its journal holds", () => {
    const steps = [{ text: "read", status: "done" }];
    const events = [
      { n: 1, t: "2026-12-05T00:00:00Z", type: "plan", steps: [{ text: "old", status: "pending" }] },
      { n: 2, t: "2026-12-05T00:00:01Z", type: "plan", steps },
    ] as JournalEvent[];
    expect(rebuildConversation("/nonexistent", events).plan).toEqual(steps);
  });
});
