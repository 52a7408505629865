import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { processExists } from "../../src/config/process.js";
import { until } from "../support/wait.js";

const parents: number[] = [];
afterEach(() => {
  for (const pid of parents.splice(0)) process.kill(pid, "SIGKILL");
});

function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0];
  } catch {
    return undefined;
  }
}

describe("processExists", () => {
  it("is true for a running process and false for no process or a pid that cannot be one", () => {
    expect(processExists(process.pid)).toBe(true);
    expect(processExists(1)).toBe(true); // someone else's, or not signalable: it still runs
    for (const pid of [0, -1, Number.NaN, 1.5, 2 ** 31]) expect(processExists(pid)).toBe(false);
  });

  it("counts a zombie as gone: it exited and only waits to be reaped", async () => {
    // A Python parent forks a child that exits at once, and never waits for it (a shell may reap it).
    const code =
      "import os, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(60)";
    const parent = spawn("python3", ["-c", code], { stdio: ["ignore", "pipe", "ignore"] });
    parents.push(parent.pid as number);
    const zombie = await new Promise<number>((resolve) =>
      parent.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    await until(() => (stateOf(zombie) === "Z" ? true : undefined));
    expect(() => process.kill(zombie, 0)).not.toThrow(); // the kernel still has it…
    expect(processExists(zombie)).toBe(false); // …but it runs no more
    expect(processExists(parent.pid as number)).toBe(true);
  });
});
