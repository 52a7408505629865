// What the sandbox tests share (test/e2e/kernels/sandbox, sandbox-paths, modes).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** Whether there is bubblewrap to confine a kernel with. */
export const BWRAP = process.platform === "linux" && existsSync("/usr/bin/bwrap");

/**
 * A folder of the user's on the host's disk, outside the project and not under /tmp (the sandbox's own
 * /tmp is another): removed after the test file. "" without bubblewrap (the tests that use it skip).
 */
export function outsideFolder(prefix: string): string {
  const path = BWRAP ? mkdtempSync(join(homedir(), prefix)) : "";
  afterAll(() => {
    if (path) rmSync(path, { recursive: true, force: true });
  });
  return path;
}

/**
 * Paths in the host's /tmp that only a process outside the sandbox could create (the sandbox's /tmp is a
 * private tmpfs), so a file there is proof of an escape: `marker(name)` names one, removed after the file.
 */
export function hostMarkers(prefix: string): (name: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const m of made) rmSync(m, { force: true });
  });
  return (name) => {
    const path = join(tmpdir(), `${prefix}-${process.pid}-${name}`);
    rmSync(path, { force: true });
    made.push(path);
    return path;
  };
}
