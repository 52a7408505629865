// The waker (src/host/schedules/waker.ts) in-process, with the revival it is given: how it treats a
// revival that fails. Through the binary, test/e2e/sessions/schedules.test.ts.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { addJob, allJobs, pauseJobs } from "../../src/host/schedules/schedules.js";
import { runWaker } from "../../src/host/schedules/waker.js";
import { tempDir } from "../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** What `run` wrote to stderr (the waker's log is its stderr). */
async function stderrOf(run: () => Promise<void>): Promise<string> {
  let text = "";
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    await run();
  } finally {
    process.stderr.write = write;
  }
  return text;
}

function homeWith(session: string): string {
  const dir = tempDir("relm-waker-");
  cleanups.push(dir.cleanup);
  mkdirSync(join(dir.path, "sessions", session), { recursive: true });
  return dir.path;
}

describe("the waker", () => {
  it("tries a session whose revival keeps failing three times, then pauses its jobs, saying why", async () => {
    const home = homeWith("s1");
    addJob(home, "s1", { every: "1s" }, "check in");
    const tries: number[] = [];
    // runWaker returns once no job is left that is not paused: here, once it gave the session up.
    const log = await stderrOf(() =>
      runWaker(
        home,
        async () => {
          tries.push(Date.now());
          throw new Error("the host exited before it was ready:\nno space left on device");
        },
        { reviveBackoffMs: 20 },
      ),
    );
    expect(tries).toHaveLength(3);
    expect(log.match(/could not be revived \(\d of 3\)/g)).toEqual([
      "could not be revived (1 of 3)",
      "could not be revived (2 of 3)",
      "could not be revived (3 of 3)",
    ]);
    expect(log).toContain("before it was ready: no space left on device");
    expect(log).toContain("relm waker: session s1 could not be revived 3 times in a row");
    const [job] = allJobs(home);
    expect(job?.paused?.reason).toBe(
      "the waker: the host exited before it was ready: no space left on device",
    );
  });

  it("gives up at once a session a revival can never bring back, and tries one that failed once again", async () => {
    const home = homeWith("gone");
    mkdirSync(join(home, "sessions", "flaky"));
    addJob(home, "gone", { every: "1s" }, "tick");
    addJob(home, "flaky", { every: "1s" }, "tick");
    const tried: string[] = [];
    const log = await stderrOf(() =>
      runWaker(
        home,
        async (session) => {
          tried.push(session);
          if (session === "gone")
            return {
              cannot: "session gone cannot be revived: its journal is gone",
              reason: "its journal no longer exists",
            };
          // The second try works; the test then pauses the job, as a revived host's delivery would end it.
          if (tried.filter((s) => s === "flaky").length === 1) throw new Error("busy disk");
          pauseJobs(home, "test: revived", (j) => j.session === "flaky");
          return undefined;
        },
        { reviveBackoffMs: 20 },
      ),
    );
    expect(tried.filter((s) => s === "gone")).toHaveLength(1);
    expect(tried.filter((s) => s === "flaky")).toHaveLength(2);
    const reasons = Object.fromEntries(allJobs(home).map((j) => [j.session, j.paused?.reason]));
    expect(reasons).toEqual({ gone: "the waker: its journal no longer exists", flaky: "test: revived" });
    expect(log).toContain("relm waker: session gone cannot be revived: its journal is gone");
    expect(log).toContain("could not be revived (1 of 3): busy disk");
  });
});
