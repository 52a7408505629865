import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, expect } from "vitest";
import { findPython, type Kernel, type KernelOptions, startKernel } from "../../src/kernel/index.js";

/** Shared by all test files: the first one to probe writes it, the others read it. */
export const PYTHON_CACHE_DIR = path.join(os.tmpdir(), "relm-test-python-cache");

export function testPython() {
  return findPython(process.env, PYTHON_CACHE_DIR);
}

const tempDirs: string[] = [];

// Top level of a module imported by each test file: runs after that file.
afterAll(async () => {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh directory, removed after the test file. */
export async function tempDir(prefix = "relm-kernel-test-"): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** True while `pid` exists and is not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** `pid`'s parent (Linux /proc), or undefined once it is gone. */
export function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** True while any non-zombie process is in process group `pgid` (Linux /proc). */
export function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z") return true;
    } catch {
      // exited meanwhile
    }
  }
  return false;
}

/** Pids of live processes named `command` (as /proc's comm gives it) in process group `pgid`. */
export function inGroup(pgid: number, command: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (name === command && Number(pgrp) === pgid && state !== "Z") found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/**
 * Starts kernels for one test file and, after the file, shuts them down and checks that no runner
 * process (including ones replaced by restarts) is left.
 */
export function useKernels(): (options?: Partial<KernelOptions>) => Promise<Kernel> {
  const kernels: Kernel[] = [];
  const pids = new Set<number>();
  afterAll(async () => {
    await Promise.all(kernels.map((k) => k.shutdown()));
    for (const pid of pids) expect(isAlive(pid), `runner ${pid} still alive`).toBe(false);
  });
  return async (options = {}) => {
    const python = options.python ?? (await testPython());
    const kernel = await startKernel({
      cwd: options.cwd ?? os.tmpdir(),
      ...options,
      python,
      onLifecycle: (event) => {
        if (event.type === "started") pids.add(event.pid);
        options.onLifecycle?.(event);
      },
    });
    pids.add(kernel.pid);
    kernels.push(kernel);
    return kernel;
  };
}
