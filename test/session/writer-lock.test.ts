// The journal's own one-writer rule (src/session/writer-lock.ts), behind the host's session lock: a
// second writer is refused whether it is in this process or another, and a writer that is gone does
// not keep the journal locked.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Journal, JournalBusyError, readJournal, WRITER_LOCK_FILE } from "../../src/session/index.js";
import { ROOT } from "../support/cli.js";
import { header, tempDir } from "./helpers.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** A node process that opens the journal in `dir` with the built Journal and keeps it open. */
async function writerIn(dir: string): Promise<ChildProcess> {
  const journal = join(ROOT, "dist/session/journal.js");
  const code = `import(${JSON.stringify(journal)}).then((m) => { m.Journal.open(${JSON.stringify(dir)}); console.log("open"); setInterval(() => {}, 1e6); })`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("open")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the writer exited (${code}) before opening`)));
  });
  return child;
}

async function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => child.once("exit", resolve));
}

function newJournal(dir: string): void {
  const journal = Journal.create(dir, header("abcd2345"));
  journal.append({ type: "user", text: "first" });
  journal.close();
}

describe("a journal's writer lock", () => {
  it("refuses a second writer in the same process until the first closes", () => {
    const dir = join(tempDir(), "abcd2345");
    const first = Journal.create(dir, header("abcd2345"));
    expect(() => Journal.open(dir)).toThrow(JournalBusyError);
    first.append({ type: "user", text: "one" });
    first.close();
    const second = Journal.open(dir);
    expect(second.append({ type: "user", text: "two" }).n).toBe(2);
    second.close();
    expect(existsSync(join(dir, WRITER_LOCK_FILE))).toBe(false);
  });

  it("refuses a writer while another process has the journal open, and names it", async () => {
    const dir = join(tempDir(), "abcd2345");
    newJournal(dir);
    const other = await writerIn(dir);
    let refused: unknown;
    try {
      Journal.open(dir);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(JournalBusyError);
    expect((refused as Error).message).toBe(
      `${join(dir, "journal.jsonl")} is being written by another relm process (pid ${other.pid}); a session ` +
        "has one writer at a time: follow it with relm attach abcd2345, or stop it with relm stop abcd2345",
    );
    expect(readJournal(join(dir, "journal.jsonl")).events.map((e) => e.n)).toEqual([1]);

    // Killed (no close): its lock stays behind, naming a process that is gone, and is taken over.
    other.kill("SIGKILL");
    await ended(other);
    expect(existsSync(join(dir, WRITER_LOCK_FILE))).toBe(true);
    const next = Journal.open(dir);
    expect(next.append({ type: "user", text: "after" }).n).toBe(2);
    next.close();
  });

  it("does not take a live process that reused a dead writer's pid for the writer", async () => {
    const dir = join(tempDir(), "abcd2345");
    newJournal(dir);
    const elsewhere = join(tempDir(), "efgh6789");
    newJournal(elsewhere);
    const stranger = await writerIn(elsewhere);
    // As a writer that crashed long ago would leave it, had its pid since gone to `stranger`.
    writeFileSync(join(dir, WRITER_LOCK_FILE), `${stranger.pid} 1`);
    const journal = Journal.open(dir);
    expect(JSON.parse(readFileSync(join(dir, WRITER_LOCK_FILE), "utf8"))).toMatchObject({
      pid: process.pid,
      started: expect.any(Number),
    });
    journal.close();
  });
});
