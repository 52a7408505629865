import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listenPrivate } from "../../src/kernel/listen.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("listenPrivate", () => {
  it("listens on a Unix socket only this user may use (0600), and rejects when the path is taken", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relm-listen-"));
    dirs.push(dir);
    const path = join(dir, "s.sock");
    const first = createServer();
    const second = createServer();
    try {
      await listenPrivate(first, path);
      expect(statSync(path).isSocket()).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      await expect(listenPrivate(second, path)).rejects.toMatchObject({ code: "EADDRINUSE" });
      expect(second.listening).toBe(false);
    } finally {
      await new Promise((r) => first.close(r));
    }
  });
});
