// Restoring a snapshot on resume runs the variables' own code (a __reduce__'s callable, a __setstate__):
// one that blocks used to hang `relm run --resume` for good. The scripted model over HTTP, a real kernel.
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

// Pickles at once; unpickling it calls time.sleep(600).
const BLOCKS_ON_LOAD = [
  "import time",
  "class Sleeper:",
  "    def __reduce__(self):",
  "        return (time.sleep, (600,))",
  "h = Sleeper()",
  "kept = [1, 2]",
].join("\n");

describe("a resumed session's variables", () => {
  it("skip one whose unpickling blocks, with its name and why, and restore the rest", async () => {
    const rig = await startRig("openai", {
      script: [{ code: BLOCKS_ON_LOAD }, { text: "made them" }, { code: "print(kept)" }, { text: "resumed" }],
    });
    const first = await runRelm(["run", "make variables"], { env: rig.env, cwd: rig.cwd });
    expect(first.code, first.stderr).toBe(0);
    const id = String(onlyJournal(rig.home).lines[0]?.id);

    // Bounded: before the fix this never returned (runRelm's own timeout is the failure).
    const resumed = await runRelm(["run", "--resume", id, "go on"], {
      env: rig.env,
      cwd: rig.cwd,
      timeoutMs: 90_000,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe("resumed");
    const note = rig.model.requests[2]?.rawBody ?? "";
    expect(note).toContain("Kernel variables restored from the snapshot after the last finished cell: kept.");
    expect(note).toMatch(/Not restored: h \(took over 5 s to unpickle[^)]*\)/);
    // The kernel went on: the restored variable is there.
    expect(rig.model.requests[3]?.rawBody ?? "").toContain("[1, 2]");
  }, 120_000);
});
