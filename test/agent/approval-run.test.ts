// What a granted request('run') does on the host (src/agent/approvals/act.ts runOutside): the command
// runs with /bin/sh in the project, its output comes back capped, and it ends when the shell does — a
// process it left in the background does not keep the answer waiting (it is ended with the command).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runOutside } from "../../src/agent/approvals/act.js";

const dir = mkdtempSync(join(tmpdir(), "relm-approval-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a granted request('run')", () => {
  it("returns the command's exit code and output, stdout and stderr together", async () => {
    const ran = await runOutside("echo out; echo err >&2; exit 3", dir, process.env, 1000);
    expect(ran).toEqual({ exit_code: 3, output: "out\nerr\n", timed_out: false });
  });

  it("answers when the shell exits, though a process it started still runs in the background", async () => {
    // Before: the answer waited for the background process to close the output pipe (up to the
    // 10-minute limit, then reported as timed out), and the cell that asked waited with it.
    const ran = await runOutside("sleep 1000 & echo started", dir, process.env, 1000);
    expect(ran).toEqual({ exit_code: 0, output: "started\n", timed_out: false });
  });

  it("keeps the head and the tail of a long output", async () => {
    const ran = await runOutside("seq 1 5000", dir, process.env, 200);
    expect(ran.output.startsWith("1\n2\n3\n")).toBe(true);
    expect(ran.output.endsWith("4999\n5000\n")).toBe(true);
    expect(ran.output.length).toBeLessThan(400);
  });
});
