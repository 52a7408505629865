import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { processExists, processRuns, processStartTime } from "../../src/config/process.js";
import { tempDir } from "../support/cli.js";
import { until } from "../support/wait.js";

const parents: number[] = [];
const dirs: { cleanup(): void }[] = [];
afterEach(() => {
  for (const pid of parents.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Killed by the test already.
    }
  }
  for (const dir of dirs.splice(0)) dir.cleanup();
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

/** Whether something accepts a connection on the Unix socket at `path`. */
function accepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("processRuns with a zombie leader", () => {
  // A host is multithreaded: SIGKILLed, its main thread can be a zombie while other threads still exit
  // and hold its descriptors, the session's lock among them, so a listing found a killed host live.
  // A process whose main thread exited while another thread serves its socket shows the state for good.
  it.runIf(process.platform === "linux")(
    "counts the process as running while a thread of it still runs, and as gone once all are",
    async () => {
      const dir = tempDir();
      dirs.push(dir);
      const path = join(dir.path, "held.sock");
      const code = [
        "import ctypes, socket, sys, threading",
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
        "s.bind(sys.argv[1]); s.listen(8)",
        "def serve():",
        "    while True: s.accept()[0].close()",
        "threading.Thread(target=serve, daemon=True).start()",
        "print('ok', flush=True)",
        "ctypes.CDLL(None).pthread_exit(None)", // the main thread ends; the serving one goes on
      ].join("\n");
      const child = spawn("python3", ["-c", code, path], { stdio: ["ignore", "pipe", "ignore"] });
      const pid = child.pid as number;
      parents.push(pid);
      await new Promise((resolve) => child.stdout.once("data", resolve));
      await until(() => (stateOf(pid) === "Z" ? true : undefined));
      const started = processStartTime(pid);
      expect(await accepts(path)).toBe(true); // it still serves…
      expect(processExists(pid)).toBe(true); // …so it runs
      expect(processRuns(pid, started)).toBe(true);
      process.kill(pid, "SIGKILL");
      await until(() => (processRuns(pid, started) ? undefined : true));
      expect(processExists(pid)).toBe(false);
      expect(await accepts(path)).toBe(false); // gone means its descriptors are closed too
    },
  );
});
