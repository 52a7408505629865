// The one cross-process lock (src/config/pid-lock.ts): real processes contend for it through the built
// module; a holder that died, a pid reused by another process and a lock past its age are taken over; a
// live holder is waited for, then reported with the caller's own error.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import {
  acquirePidLock,
  type LockHolder,
  tryPidLock,
  withPidLock,
  withPidLockSync,
} from "../../src/config/pid-lock.js";
import { processStartTime } from "../../src/config/process.js";
import { ROOT, tempDir } from "../support/cli.js";

const MODULE = JSON.stringify(join(ROOT, "dist/config/pid-lock.js"));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

function dir(): string {
  const d = tempDir("relm-lock-");
  onTestFinished(d.cleanup);
  return d.path;
}

/** Resolves when `child` has printed `word` (a line of its own). */
function printed(child: ChildProcess, word: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.split("\n").includes(word)) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the child exited (${code}) before printing ${word}`)));
  });
}

/** A process that takes the lock `path` with the built module and holds it until told (on stdin). */
async function holder(path: string): Promise<ChildProcess> {
  const script = `
    const { acquirePidLock } = await import(${MODULE});
    const lock = acquirePidLock(process.argv[1]);
    console.log("held");
    process.stdin.on("data", () => { lock.release(); console.log("released"); });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, path], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  await printed(child, "held");
  return child;
}

async function release(child: ChildProcess): Promise<void> {
  const done = printed(child, "released");
  child.stdin?.write("release\n");
  await done;
}

async function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  if (child.exitCode === null && child.signalCode === null) await exited;
}

class Busy extends Error {
  constructor(readonly holder: LockHolder | undefined) {
    super(`busy: ${holder?.pid}`);
  }
}
const busy = (holder: LockHolder | undefined) => new Busy(holder);

function refusal(fn: () => unknown): Busy {
  try {
    fn();
  } catch (error) {
    if (error instanceof Busy) return error;
    throw error;
  }
  throw new Error("the lock was taken");
}

/** Sets a file's modification time `ms` into the past. */
function age(path: string, ms: number): void {
  const then = new Date(Date.now() - ms);
  utimesSync(path, then, then);
}

describe("the pid lock", () => {
  it("lets one process at a time in, whether it waits synchronously or not", async () => {
    const d = dir();
    const lock = join(d, "counter.lock");
    const counter = join(d, "counter");
    const inside = join(d, "inside");
    writeFileSync(counter, "0");
    const rounds = 300;
    // Each round: mark the section occupied (O_EXCL: a second occupant fails), read-modify-write a counter.
    const section = `() => {
        try { closeSync(openSync(${JSON.stringify(inside)}, "wx")); } catch { console.log("overlap"); }
        const n = Number(readFileSync(${JSON.stringify(counter)}, "utf8"));
        writeFileSync(${JSON.stringify(counter)}, String(n + 1));
        rmSync(${JSON.stringify(inside)}, { force: true });
      }`;
    const script = (async: boolean) => `
      import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
      const { withPidLock, withPidLockSync } = await import(${MODULE});
      for (let i = 0; i < ${rounds}; i++) {
        ${async ? `await withPidLock(${JSON.stringify(lock)}, async ${section}, { waitMs: 60000 })` : `withPidLockSync(${JSON.stringify(lock)}, ${section}, { waitMs: 60000 })`};
      }
      console.log("done");`;
    const runs = [false, true, false].map(
      (async) =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, ["--input-type=module", "-e", script(async)], {
            stdio: ["ignore", "pipe", "inherit"],
          });
          children.push(child);
          let out = "";
          child.stdout?.on("data", (b: Buffer) => {
            out += b.toString();
          });
          child.once("exit", (code) =>
            code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`)),
          );
        }),
    );
    const outputs = await Promise.all(runs);
    expect(outputs.join("")).not.toContain("overlap");
    expect(readFileSync(counter, "utf8")).toBe(String(3 * rounds));
    expect(existsSync(lock)).toBe(false);
  });

  it("reports a live holder with the caller's error, after waiting, and takes the lock once it is let go", async () => {
    const path = join(dir(), "a.lock");
    const other = await holder(path);
    let ran = false;
    const sync = refusal(() =>
      withPidLockSync(
        path,
        () => {
          ran = true;
        },
        { waitMs: 50, busyError: busy },
      ),
    );
    expect(sync.holder).toMatchObject({ pid: other.pid, host: hostname() });
    await expect(withPidLock(path, async () => 1, { waitMs: 50, busyError: busy })).rejects.toBeInstanceOf(
      Busy,
    );
    expect(() => acquirePidLock(path, { busyError: busy })).toThrow(Busy);
    expect(tryPidLock(path)).toBeUndefined();
    expect(ran).toBe(false);

    // A waiter gets it as soon as the holder lets go.
    const waiting = withPidLock(path, async () => readFileSync(path, "utf8"), { waitMs: 60_000 });
    await release(other);
    expect(JSON.parse(await waiting)).toMatchObject({ pid: process.pid, host: hostname() });
    expect(existsSync(path)).toBe(false);
  });

  it("takes over a lock whose holder died", async () => {
    const path = join(dir(), "a.lock");
    const other = await holder(path);
    expect(refusal(() => acquirePidLock(path, { busyError: busy })).holder?.pid).toBe(other.pid);
    await killed(other);
    expect(existsSync(path)).toBe(true); // it never let go
    const lock = acquirePidLock(path);
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ pid: process.pid });
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it("does not take a live process that reused a dead holder's pid for the holder", async () => {
    const d = dir();
    const stranger = await holder(join(d, "elsewhere.lock"));
    const pid = stranger.pid as number;
    const started = processStartTime(pid);
    expect(started).toBeDefined();
    const path = join(d, "a.lock");
    // As a holder that crashed long ago would have left it, had its pid since gone to `stranger`.
    for (const text of [
      JSON.stringify({
        pid,
        host: hostname(),
        started: (started as number) - 1,
        since: "2026-01-01T00:00:00Z",
      }),
      `${pid} ${(started as number) - 1}`, // the journal lock's older form
    ]) {
      writeFileSync(path, text);
      expect(withPidLockSync(path, () => "taken", { waitMs: 0 })).toBe("taken");
    }
    // The same pid with its own start time (or none recorded, as in the oldest form) is the holder.
    for (const text of [JSON.stringify({ pid, host: hostname(), started }), String(pid)]) {
      writeFileSync(path, text);
      expect(refusal(() => acquirePidLock(path, { busyError: busy })).holder?.pid).toBe(pid);
    }
  });

  it("takes over a lock older than the caller's maximum age, and the old holder's release leaves it", async () => {
    const path = join(dir(), "a.lock");
    const hung = await holder(path);
    age(path, 120_000);
    expect(() => acquirePidLock(path, { busyError: busy })).toThrow(Busy); // no maximum: still its
    const lock = acquirePidLock(path, { maxAgeMs: 60_000 });
    const mine = readFileSync(path, "utf8");
    await release(hung);
    expect(readFileSync(path, "utf8")).toBe(mine);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it("waits for a holder on another machine, which it cannot judge, unless the lock is too old", () => {
    const path = join(dir(), "a.lock");
    writeFileSync(
      path,
      JSON.stringify({ pid: 2 ** 30, host: `not-${hostname()}`, since: "2026-01-01T00:00:00Z" }),
    );
    expect(refusal(() => acquirePidLock(path, { busyError: busy })).holder?.host).toBe(`not-${hostname()}`);
    age(path, 120_000);
    expect(withPidLockSync(path, () => "taken", { waitMs: 0, maxAgeMs: 60_000 })).toBe("taken");
  });

  it("gives an empty lock (its holder between creating and writing it) a moment, then takes it", () => {
    const path = join(dir(), "a.lock");
    writeFileSync(path, "");
    expect(refusal(() => acquirePidLock(path, { busyError: busy })).holder).toBeUndefined();
    age(path, 10_000);
    expect(withPidLockSync(path, () => "taken", { waitMs: 0 })).toBe("taken");
  });

  it("in one process: a nested synchronous take fails at once, an async one waits its turn", async () => {
    const path = join(dir(), "a.lock");
    const outer = acquirePidLock(path);
    expect(
      refusal(() => withPidLockSync(path, () => 0, { waitMs: 60_000, busyError: busy })).holder?.pid,
    ).toBe(process.pid);
    const order: string[] = [];
    const waiting = withPidLock(
      path,
      async () => {
        order.push("inner");
      },
      { waitMs: 60_000 },
    );
    order.push("outer");
    outer.release();
    await waiting;
    expect(order).toEqual(["outer", "inner"]);

    // A lock naming this process that it does not hold (never released) is stale.
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname() }));
    expect(withPidLockSync(path, () => "taken", { waitMs: 0 })).toBe("taken");
  });
});
