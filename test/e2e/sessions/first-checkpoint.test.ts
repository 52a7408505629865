import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

/**
 * A `git` that holds every `git add` (the scan a checkpoint makes) until `release` exists: the session's
 * first checkpoint is then still being taken when the first cell runs, as on a large repository.
 */
function slowGit(dir: string, release: string): string {
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh\nfor a in "$@"; do\n  if [ "$a" = add ]; then\n    while [ ! -e '${release}' ]; do sleep 0.05; done\n    break\n  fi\ndone\nexec '${real}' "$@"\n`,
  );
  chmodSync(join(bin, "git"), 0o755);
  return bin;
}

describe("the session's first checkpoint", () => {
  it("does not hold up the first cell, and still has the files as they were before it", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "relm-first-cp-"));
    const mark = join(scratch, "cell-reached-its-write"); // outside the work tree: not held
    const rig = await startRig("openai", {
      script: [
        {
          code: `open(${JSON.stringify(mark)}, 'w').write('reached')\nopen('notes.txt', 'w').write('after\\n')\nprint('wrote')`,
        },
        { text: "done" },
      ],
    });
    writeFileSync(join(rig.cwd, "notes.txt"), "before\n");
    const release = join(scratch, "release-git");
    const bin = slowGit(scratch, release);
    const env = { ...rig.env, PATH: `${bin}:${rig.env.PATH ?? process.env.PATH}` };
    const run = runRelm(["run", "change the notes"], { env, cwd: rig.cwd });

    // The cell runs while the checkpoint's scan is held (it cannot have finished: git add is waiting) ...
    await until(() => (existsSync(mark) ? true : undefined), 60_000);
    // ... and its write into the work tree waits for the checkpoint.
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("before\n");
    writeFileSync(release, "");
    const result = await run;
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("after\n");

    const { lines } = onlyJournal(rig.home);
    const id = (lines[0] as unknown as { id: string }).id;
    const checkpoint = lines.find((l) => l.type === "checkpoint") as unknown as {
      turn: number;
      commit?: string;
    };
    expect(checkpoint.turn).toBe(1);
    expect(checkpoint.commit).toMatch(/^[0-9a-f]{40}$/);
    const undo = await runRelm(["undo", id], { env, cwd: rig.cwd });
    expect(undo.stderr).toBe("");
    expect(undo.code).toBe(0);
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("before\n");
    rmSync(scratch, { recursive: true, force: true });
  }, 120_000);
});
