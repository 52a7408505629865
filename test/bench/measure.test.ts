// bench/measure.py bounds how long it waits for what a command leaves behind (ORPHAN_WAIT, 5 s): a leftover
// holding the command's stderr kept it reading that pipe, before reaping, for as long as the leftover lived.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT, tempDir } from "../support/cli.js";

const exec = promisify(execFile);
const MEASURE = path.join(ROOT, "bench/measure.py");
const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

describe("bench/measure.py", () => {
  it("reports within its orphan wait when a leftover still holds the command's stderr", async () => {
    const dir = tempDir("relm-measure-");
    try {
      const pidFile = path.join(dir.path, "leftover.pid");
      // The leftover (a minute long) inherits the pipe; the command itself says something and exits.
      const script = `echo said >&2; sleep 60 & echo $! > ${pidFile}`;
      // A correctness bound, not a speed figure: the 5 s orphan wait plus a wide margin, far below 60 s.
      const { stdout } = await exec("python3", [MEASURE, "--no-poll", "sh", "-c", script], {
        timeout: 30_000,
      }).finally(() => leftovers.push(Number(readFileSync(pidFile, "utf8"))));
      const result = JSON.parse(stdout) as { code: number; stderr: string };
      expect(result).toMatchObject({ code: 0, stderr: "said\n" });
    } finally {
      dir.cleanup();
    }
  }, 40_000);
});
