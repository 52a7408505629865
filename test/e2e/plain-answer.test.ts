// A task the model answers without code starts no kernel (issue 24, goal 2): the kernel starts when a
// streamed reply begins a tool call. Every Python process is observed through a sitecustomize.py on
// PYTHONPATH that logs its pid and command line (the kernel, its keeper, the interpreter probe alike).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runRelm } from "../support/cli.js";
import { readJournalLines } from "../support/journal.js";
import { byTask } from "../support/router.js";
import { type Rig, useRigs } from "../support/scripted.js";

const startRig = useRigs();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An environment in which every Python process started appends a line to the returned log. */
function observed(rig: Rig): { env: NodeJS.ProcessEnv; log: string } {
  const dir = mkdtempSync(join(tmpdir(), "relm-pylog-"));
  dirs.push(dir);
  const log = join(dir, "started.log");
  writeFileSync(log, "");
  writeFileSync(
    join(dir, "sitecustomize.py"),
    `import os, sys\nwith open(${JSON.stringify(log)}, "a") as f:\n    f.write("%d %r\\n" % (os.getpid(), sys.argv))\n`,
  );
  return { env: { ...rig.env, PYTHONPATH: dir }, log };
}

function sessionOf(stderr: string): string {
  return /session (\w+)/.exec(stderr)?.[1] as string;
}

describe("a plain answer", () => {
  it("starts no Python process and journals no kernel; a reply with code starts one", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "run some code": [{ code: "print(6 * 7)" }, { text: "it printed 42" }],
        "just answer": [{ text: "no code needed" }],
      }),
    });
    const { env, log } = observed(rig);
    // First a task with a cell: the observation sees its kernel (and warms the interpreter probe's cache).
    const withCode = await runRelm(["run", "run some code"], { env, cwd: rig.cwd });
    expect(withCode.code, withCode.stderr).toBe(0);
    expect(withCode.stdout.trim()).toBe("it printed 42");
    expect(readFileSync(log, "utf8")).toMatch(/--first-count/); // the kernel's runner (sys.argv of `-m relm.runner` at startup)
    const codeEvents = readJournalLines(rig.home, sessionOf(withCode.stderr));
    expect(codeEvents.some((e) => e.type === "kernel" && e.event === "started")).toBe(true);

    writeFileSync(log, "");
    const plain = await runRelm(["run", "just answer"], { env, cwd: rig.cwd });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.trim()).toBe("no code needed");
    expect(readFileSync(log, "utf8")).toBe("");
    const plainEvents = readJournalLines(rig.home, sessionOf(plain.stderr));
    expect(plainEvents.some((e) => e.type === "final")).toBe(true);
    expect(plainEvents.filter((e) => e.type === "kernel")).toEqual([]);
  });
});
