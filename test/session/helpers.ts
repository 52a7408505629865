import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { JournalHeader } from "../../src/session/index.js";

const dirs: string[] = [];

/** A fresh temp dir, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "relm-session-"));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function header(id = "abcd2345"): Omit<JournalHeader, "type" | "version"> {
  return {
    id,
    created: "2025-01-01T00:00:00.000Z",
    cwd: "/home/user/project",
    title: "Count the lines",
    provider: "openai",
    model: "test-model",
    relm: "0.1.0",
  };
}
