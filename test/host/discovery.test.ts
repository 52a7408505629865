// Listing sessions: liveness comes from the host's socket, checked only where a host may exist.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionServer } from "../../src/host/server.js";
import { describe as describeSession } from "../../src/host/states/discovery.js";
import { writeState } from "../../src/host/states/state.js";
import { tempDir } from "../support/cli.js";

function state(id: string, status: "interrupted" | "failed" | "idle", pid: number) {
  return {
    id,
    title: "t",
    cwd: "/tmp",
    created: new Date().toISOString(),
    status,
    lastActivity: new Date().toISOString(),
    tokens: 0,
    cost: null,
    pid,
    detached: true,
  };
}

describe("session discovery", () => {
  it("a host that stays up after an interrupted or failed turn is still live (agents, stop, shutdown reach it)", async () => {
    const home = tempDir();
    try {
      for (const [id, status] of [
        ["livea001", "interrupted"],
        ["liveb002", "failed"],
      ] as const) {
        mkdirSync(join(home.path, "sessions", id), { recursive: true });
        const server = await SessionServer.listen(home.path, id);
        writeState(home.path, state(id, status, process.pid));
        expect(await describeSession(home.path, id)).toMatchObject({ status, live: true });
        await server.close();
        // Its host gone, the same state is not live.
        expect(await describeSession(home.path, id)).toMatchObject({ status, live: false });
      }
    } finally {
      home.cleanup();
    }
  });

  it("a stopped session whose process no longer exists is not live, and idle with a dead host is done", async () => {
    const home = tempDir();
    try {
      mkdirSync(join(home.path, "sessions", "dead0001"), { recursive: true });
      writeState(home.path, state("dead0001", "interrupted", 2 ** 22 + 7));
      expect(await describeSession(home.path, "dead0001")).toMatchObject({
        live: false,
        status: "interrupted",
      });
      writeState(home.path, state("dead0001", "idle", 2 ** 22 + 7));
      expect(await describeSession(home.path, "dead0001")).toMatchObject({ live: false, status: "done" });
    } finally {
      home.cleanup();
    }
  });
});
