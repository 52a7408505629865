import { mkdtempSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isUserError } from "../../src/config/errors.js";
import { FileLockTimeout, withFileLock } from "../../src/host/file-lock.js";

describe("withFileLock", () => {
  it("a lock kept by a live process ends in a user error naming the file, the holder and the fix", () => {
    const path = join(mkdtempSync(join(tmpdir(), "relm-file-lock-")), "schedules.lock");
    // The test runner's parent is alive for the whole test: a holder that will not go away.
    writeFileSync(path, JSON.stringify({ pid: process.ppid, host: hostname() }));
    let caught: unknown;
    try {
      withFileLock(path, () => "never", 50);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FileLockTimeout);
    expect(isUserError(caught)).toBe(true);
    expect((caught as Error).message).toContain(path);
    expect((caught as Error).message).toContain(`process ${process.ppid}`);
    expect((caught as Error).message).toContain("remove that file");
  });
});
