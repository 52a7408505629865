// restartAfterCrash: false (a child agent's kernel): a kernel that dies during a cell is not restarted
// before the crash is reported (for a Slurm kernel a restart is a new job that may wait in the queue);
// it is restarted only when used again.
import { describe, expect, it } from "vitest";
import { isAlive, useKernels } from "./helpers.js";

const start = useKernels();

describe("restartAfterCrash: false", () => {
  it("reports the crash without restarting, and restarts on the next use", async () => {
    const events: string[] = [];
    const kernel = await start({ restartAfterCrash: false, onLifecycle: (e) => events.push(e.type) });
    const first = kernel.pid;
    const r = await kernel.execute("import os\nos._exit(5)");
    expect(r.status).toBe("crashed");
    expect(r.note).toBe("The kernel process died during this cell (exit code 5). All variables were lost.");
    expect(events).not.toContain("restarted");
    expect(isAlive(first)).toBe(false);
    const again = await kernel.execute("print(6 * 7)");
    expect(again.output).toBe("42\n");
    expect(events).toContain("restarted");
    expect(kernel.pid).not.toBe(first);
  });
});
