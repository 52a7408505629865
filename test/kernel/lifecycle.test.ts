import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  KernelClosedError,
  KernelStartError,
  scrubEnvironment,
  startKernel,
} from "../../src/kernel/index.js";
import { eventually } from "../support/wait.js";
import { groupAlive, isAlive, parentOf, testPython, useKernels } from "./helpers.js";

const start = useKernels();

const BACKGROUND_SLEEP = "import subprocess\nsubprocess.Popen(['sleep', '60']).pid";

describe("kernel lifecycle", () => {
  it("shutdown kills the runner and its whole process group", async () => {
    const kernel = await start();
    const pid = kernel.pid;
    const sleeper = Number((await kernel.execute(BACKGROUND_SLEEP)).output);
    expect(isAlive(sleeper)).toBe(true);
    await kernel.shutdown();
    await kernel.shutdown(); // idempotent
    expect(isAlive(pid)).toBe(false);
    expect(await eventually(() => !groupAlive(pid))).toBe(true);
    expect(isAlive(sleeper)).toBe(false);
    await expect(kernel.execute("1")).rejects.toBeInstanceOf(KernelClosedError);
  });

  it("a crash takes the cell's background processes with it", async () => {
    const kernel = await start();
    const sleeper = Number((await kernel.execute(BACKGROUND_SLEEP)).output);
    const r = await kernel.execute("import os\nos._exit(3)");
    expect(r.status).toBe("crashed");
    expect(await eventually(() => !isAlive(sleeper))).toBe(true);
  });

  it("the runner kills its group and exits when its stdin closes (host died)", async () => {
    const python = await testPython();
    const child = spawn(python.path, ["-m", "relm.runner"], {
      env: scrubEnvironment(process.env),
      detached: true,
      stdio: ["pipe", "pipe", "inherit"],
    });
    const lines: string[] = [];
    let buffered = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      buffered += d;
      const parts = buffered.split("\n");
      buffered = parts.pop()!;
      lines.push(...parts);
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    expect(await eventually(() => lines.length > 0, 30_000)).toBe(true);
    const ready = JSON.parse(lines[0]!) as { type: string; pid: number };
    expect(ready.type).toBe("ready");
    // On Linux the process started is the kernel's keeper (python/relm/keeper.py), the kernel its child.
    if (process.platform === "linux") expect(parentOf(ready.pid)).toBe(child.pid);
    else expect(ready.pid).toBe(child.pid);
    child.stdin.write(`${JSON.stringify({ type: "execute", id: 1, code: BACKGROUND_SLEEP, cap: 1000 })}\n`);
    expect(await eventually(() => lines.some((l) => l.includes('"result"')), 30_000)).toBe(true);
    const result = JSON.parse(lines.find((l) => l.includes('"result"'))!);
    const sleeper = Number(result.output);
    expect(isAlive(sleeper)).toBe(true);
    child.stdin.end();
    await exited;
    expect(isAlive(child.pid!)).toBe(false);
    expect(isAlive(ready.pid)).toBe(false);
    expect(await eventually(() => !isAlive(sleeper))).toBe(true);
  });

  it("a host killed with SIGKILL leaves no runner or cell subprocess behind", async () => {
    const python = await testPython();
    // A stand-in host: starts the runner in its own group, has a cell start a background process,
    // prints both pids, then dies without any chance to clean up.
    const host = `
import json, os, signal, subprocess, sys
runner = subprocess.Popen([sys.executable, "-m", "relm.runner"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, start_new_session=True)
runner.stdout.readline()
cell = {"type": "execute", "id": 1, "code": ${JSON.stringify(BACKGROUND_SLEEP)}, "cap": 1000}
runner.stdin.write((json.dumps(cell) + "\\n").encode()); runner.stdin.flush()
while True:
    msg = json.loads(runner.stdout.readline())
    if msg["type"] == "result": break
print(runner.pid, msg["output"].strip(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
`;
    const child = spawn(python.path, ["-c", host], {
      env: scrubEnvironment(process.env),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      out += d;
    });
    await new Promise((resolve) => child.once("close", resolve));
    const [runner, sleeper] = out.trim().split(" ").map(Number);
    expect(runner).toBeGreaterThan(0);
    expect(sleeper).toBeGreaterThan(0);
    expect(await eventually(() => !isAlive(runner!) && !isAlive(sleeper!))).toBe(true);
  });

  it("reports a kernel that cannot start", async () => {
    const attempt = startKernel({
      cwd: "/",
      python: { path: "/bin/false", version: "3.11.0", ipython: null },
    });
    await expect(attempt).rejects.toBeInstanceOf(KernelStartError);
    // How it ended, in words: not "code 1, signal null".
    await expect(attempt).rejects.toThrow(/^the kernel exited while starting \(exit code 1\)$/);
  });

  it("a kernel that fails while starting says why (Python's traceback), not only its exit code", async () => {
    // A package on PYTHONPATH named like a module the runner uses (a skill "json", say): the runner
    // imports it, then fails once its output is redirected, sending its first message.
    const dir = mkdtempSync(join(tmpdir(), "relm-shadow-"));
    mkdirSync(join(dir, "json"));
    writeFileSync(join(dir, "json", "__init__.py"), "SHADOW = True\n");
    try {
      const attempt = startKernel({
        cwd: dir,
        python: await testPython(),
        env: { ...process.env, PYTHONPATH: dir },
      });
      await expect(attempt).rejects.toBeInstanceOf(KernelStartError);
      await expect(attempt).rejects.toThrow(
        /exited while starting[\s\S]*AttributeError: module 'json' has no attribute/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
