import { describe, expect, it } from "vitest";
import { until } from "../support/wait.js";
import { starts, useForking } from "./fork-helpers.js";
import { inGroup, isAlive } from "./helpers.js";

const forking = useForking();

describe("forked kernels: timeouts, interrupts and crashes", () => {
  it("interrupts a runaway cell at its timeout and keeps the variables", async () => {
    const template = await forking.template();
    const kernel = await forking.kernel(template);
    await kernel.execute("x = 41");
    const pid = kernel.pid;
    const r = await kernel.execute("print('started')\nwhile True: pass", { timeoutMs: 1000 });
    expect(r.status).toBe("timeout");
    expect(r.error?.name).toBe("KeyboardInterrupt");
    expect(r.output).toContain("started");
    expect(r.note).toMatch(/variables are intact/);
    expect(kernel.pid).toBe(pid);
    expect((await kernel.execute("x + 1")).output).toBe("42\n");
  });

  it("interrupt() stops the running cell and its subprocesses", async () => {
    const template = await forking.template();
    const kernel = await forking.kernel(template);
    const pending = kernel.execute("!sleep 30\nprint('must not' + ' run')");
    // Interrupt once the shell command runs, so the interrupt has a subprocess to stop.
    await until(() => (inGroup(kernel.pid, "sleep").length > 0 ? true : undefined));
    kernel.interrupt();
    const r = await pending;
    expect(r.error?.name).toBe("KeyboardInterrupt");
    expect(r.output).not.toContain("must not run");
    expect((await kernel.execute("'alive'")).output).toBe("'alive'\n");
  });

  it("kills a cell that ignores SIGINT and forks a fresh kernel from the template", async () => {
    const template = await forking.template();
    const kernel = await forking.kernel(template, { interruptGraceMs: 500 });
    await kernel.execute("y = 1");
    const oldPid = kernel.pid;
    const r = await kernel.execute(
      "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('ignoring', flush=True)\nwhile True: pass",
      { timeoutMs: 1000 },
    );
    expect(r.status).toBe("timeout");
    expect(r.output).toContain("ignoring");
    expect(r.note).toMatch(/killed and restarted/);
    expect(r.note).toMatch(/variables were lost/);
    expect(kernel.pid).not.toBe(oldPid);
    expect(isAlive(oldPid)).toBe(false);
    expect(forking.events.map((e) => e.type)).toEqual(["started", "died", "started", "restarted"]);
    expect(forking.events[1]).toMatchObject({ type: "died", pid: oldPid, signal: "SIGKILL" });
    expect(starts(forking.events)[1]).toMatchObject({ pid: kernel.pid, forkedFrom: template.pid });
    const next = await kernel.execute("'y' in dir()");
    expect(next.output).toBe("False\n");
    expect(next.note).toBeUndefined();
    expect(next.executionCount).toBe(r.executionCount + 1);
  });

  it("reports os._exit(3) as a crash naming the exit code, then runs the next cell", async () => {
    const template = await forking.template();
    const kernel = await forking.kernel(template);
    await kernel.execute("z = 1");
    const oldPid = kernel.pid;
    const r = await kernel.execute("import os\nprint('last words', flush=True)\nos._exit(3)");
    expect(r.status).toBe("crashed");
    expect(r.note).toMatch(/died during this cell \(exit code 3\)/);
    expect(r.note).toMatch(/variables were lost/);
    expect(forking.events[1]).toMatchObject({ type: "died", pid: oldPid, code: 3, signal: null });
    expect(kernel.pid).not.toBe(oldPid);
    const next = await kernel.execute("1 + 1");
    expect(next.status).toBe("ok");
    expect(next.output).toBe("2\n");
    expect((await kernel.execute("'z' in dir()")).output).toBe("False\n");
    expect(starts(forking.events).every((e) => e.forkedFrom === template.pid)).toBe(true);
  });

  it("notices a kernel killed while idle and says so with the next cell", async () => {
    const template = await forking.template();
    const kernel = await forking.kernel(template);
    const pid = kernel.pid;
    process.kill(pid, "SIGKILL");
    // The next cell must find the death already noticed (a death during the cell is another case).
    await until(() => (forking.events.some((e) => e.type === "died" && e.pid === pid) ? true : undefined));
    const r = await kernel.execute("2 + 2");
    expect(r.status).toBe("ok");
    expect(r.output).toBe("4\n");
    expect(r.note).toMatch(/died between cells \(killed by SIGKILL\)/);
  });

  it("a crash takes the cell's background processes with it", async () => {
    const template = await forking.template();
    const kernel = await forking.kernel(template);
    const sleeper = Number(
      (await kernel.execute("import subprocess\nsubprocess.Popen(['sleep', '60']).pid")).output,
    );
    forking.track(sleeper);
    expect(isAlive(sleeper)).toBe(true);
    expect((await kernel.execute("import os\nos._exit(1)")).status).toBe("crashed");
  });
});
