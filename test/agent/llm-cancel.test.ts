// llm() and llm.batch() from a cell that is interrupted (a --cell-timeout): the kernel sends llm.cancel
// with the call's id, and the host stops the completions it was making for that call. Before, a batch of
// a thousand prompts went on being sent, and paid for, after the cell that wanted them had given up.
import { describe, expect, it } from "vitest";
import { handleKernelCall } from "../../src/agent/kernel-api/calls.js";
import { useSessions } from "../support/in-process.js";
import { byTask, whoAsks } from "../support/router.js";
import { useRigs } from "../support/scripted.js";
import { eventually } from "../support/wait.js";

const startRig = useRigs();
const open = useSessions();

describe("an interrupted llm call", () => {
  it("stops the batch: the request in flight is abandoned and no further prompt is sent", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const rig = await startRig("openai", {
      script: byTask({
        // The first prompt's answer waits for the test (released after it, whatever happened).
        "LLM: 0": [
          async () => {
            await gate;
            return { text: "zero" };
          },
        ],
        "LLM: 1": [{ text: "one" }],
        "LLM: 2": [{ text: "two" }],
      }),
    });
    const { session } = await open(rig);
    const asked = (task: string) => rig.model.requests.some((r) => whoAsks({ body: r.body }).task === task);
    try {
      const batch = handleKernelCall(session, "llm.batch", {
        prompts: ["LLM: 0", "LLM: 1", "LLM: 2"],
        max_parallel: 1,
        call: "cell-7",
      });
      const settled = batch.then(
        () => "answered",
        (error: Error) => error.message,
      );
      expect(await eventually(() => asked("LLM: 0"), 60_000)).toBe(true);

      await handleKernelCall(session, "llm.cancel", { call: "cell-7" });

      expect(await settled).toMatch(/llm: cancelled/);
      expect(asked("LLM: 1")).toBe(false);
    } finally {
      release();
    }
  });
});
