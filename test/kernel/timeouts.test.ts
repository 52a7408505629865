import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { KernelLifecycleEvent } from "../../src/kernel/index.js";
import { pythonWaitForFile, until } from "../support/wait.js";
import { isAlive, tempDir, useKernels } from "./helpers.js";

const start = useKernels();

describe("timeouts, interrupts and crashes", () => {
  it("interrupts a runaway cell at its timeout and keeps the variables", async () => {
    const kernel = await start();
    await kernel.execute("x = 41");
    const pid = kernel.pid;
    const r = await kernel.execute("print('started')\nwhile True: pass", { timeoutMs: 2000 });
    expect(r.status).toBe("timeout");
    expect(r.error?.name).toBe("KeyboardInterrupt");
    expect(r.output).toContain("started");
    expect(r.note).toMatch(/interrupted after 2 s/);
    expect(r.note).toMatch(/variables are intact/);
    expect(kernel.pid).toBe(pid);
    expect((await kernel.execute("x + 1")).output).toBe("42\n");
  });

  it("kills and restarts a kernel whose cell ignores SIGINT", async () => {
    const events: KernelLifecycleEvent[] = [];
    const kernel = await start({ interruptGraceMs: 500, onLifecycle: (e) => events.push(e) });
    await kernel.execute("y = 1");
    const oldPid = kernel.pid;
    const r = await kernel.execute(
      "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('ignoring', flush=True)\nwhile True: pass",
      { timeoutMs: 1000 },
    );
    expect(r.status).toBe("timeout");
    expect(r.note).toMatch(/killed and restarted/);
    expect(r.note).toMatch(/variables were lost/);
    expect(kernel.pid).not.toBe(oldPid);
    expect(isAlive(oldPid)).toBe(false);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["died", "restarted"]));
    const next = await kernel.execute("'y' in dir()");
    expect(next.status).toBe("ok");
    expect(next.output).toBe("False\n");
    expect(next.note).toBeUndefined(); // told once, with the cell that lost them
    expect(next.executionCount).toBe(r.executionCount + 1);
  });

  it("reports a crash with what streamed so far and starts a fresh kernel", async () => {
    const output: string[] = [];
    const kernel = await start({ onOutput: (text) => output.push(text) });
    await kernel.execute("z = 1");
    const oldPid = kernel.pid;
    // The cell dies only once its last words have reached the host.
    const release = path.join(await tempDir(), "crash-now");
    const running = kernel.execute(
      `print('last words', flush=True)\n${pythonWaitForFile(release)}\n_os._exit(1)`,
    );
    await until(() => (output.join("").includes("last words") ? true : undefined));
    writeFileSync(release, "");
    const r = await running;
    expect(r.status).toBe("crashed");
    expect(r.output).toContain("last words");
    expect(r.note).toMatch(/died during this cell \(exit code 1\)/);
    expect(r.note).toMatch(/variables were lost/);
    expect(kernel.pid).not.toBe(oldPid);
    const next = await kernel.execute("1 + 1");
    expect(next.status).toBe("ok");
    expect(next.output).toBe("2\n");
    expect(next.note).toBeUndefined();
    expect((await kernel.execute("'z' in dir()")).output).toBe("False\n");
  });

  it("tells the next cell when the kernel died while idle", async () => {
    const events: KernelLifecycleEvent[] = [];
    const kernel = await start({ onLifecycle: (e) => events.push(e) });
    const pid = kernel.pid;
    process.kill(pid, "SIGKILL");
    // The next cell must find the death already noticed (a death during the cell is another case).
    await until(() => (events.some((e) => e.type === "died" && e.pid === pid) ? true : undefined));
    const r = await kernel.execute("2 + 2");
    expect(r.status).toBe("ok");
    expect(r.output).toBe("4\n");
    expect(r.note).toMatch(/died between cells/);
  });

  it("interrupt() stops the running cell; SIGINT while idle is ignored", async () => {
    const output: string[] = [];
    const kernel = await start({ onOutput: (text) => output.push(text) });
    kernel.interrupt(); // idle: no-op
    process.kill(-kernel.pid, "SIGINT"); // even a stray group signal must not kill an idle kernel
    // A round trip: the kernel has handled the stray signal, while idle, before it answers a cell.
    await kernel.execute("None");
    // Runs for a minute unless interrupted, which happens once it has said it started.
    const pending = kernel.execute(
      "import time\nprint('looping', flush=True)\nfor _ in range(600): time.sleep(0.1)",
    );
    await until(() => (output.join("").includes("looping") ? true : undefined));
    kernel.interrupt();
    const r = await pending;
    expect(r.status).toBe("error");
    expect(r.error?.name).toBe("KeyboardInterrupt");
    expect((await kernel.execute("'alive'")).output).toBe("'alive'\n");
  });

  it("interrupts subprocesses of the cell too", async () => {
    const kernel = await start();
    const r = await kernel.execute("!sleep 30\nprint('must not' + ' run')", { timeoutMs: 1000 });
    expect(r.status).toBe("timeout");
    expect(r.error?.name).toBe("KeyboardInterrupt");
    expect(r.output).not.toContain("must not run");
    expect(r.note).toMatch(/intact/);
  });
});
