import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Agent } from "../../src/agent/core/agent.js";
import type { AgentEvent } from "../../src/agent/core/events.js";
import { makeDirs } from "../../src/config/dirs.js";
import { StateBoard } from "../../src/host/states/board.js";
import { until } from "../support/wait.js";

// state.json is what `relm agents` lists. An `rlm.map` spawns its children in a burst: each spawn used
// to rewrite the file (a write and a rename, milliseconds on a loaded disk, per child).

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function board(): { board: StateBoard; file: string } {
  const home = mkdtempSync(join(os.tmpdir(), "relm-board-"));
  homes.push(home);
  const dir = join(home, "sessions", "s1");
  makeDirs(dir);
  const session = { id: "s1", dir, journal: { header: { created: new Date().toISOString() } } };
  const b = new StateBoard(session as unknown as Agent, {
    home,
    title: "t",
    cwd: home,
    detached: false,
  });
  return { board: b, file: join(dir, "state.json") };
}

const spawned = { type: "child_spawned", id: "c", task: "t" } as unknown as AgentEvent;
const read = (file: string) =>
  JSON.parse(readFileSync(file, "utf8")) as { status: string; lastActivity: string };

describe("the state board during a burst of children", () => {
  it("says waiting at the first spawn, rewrites nothing for the next ones, then refreshes the activity", async () => {
    const { board: b, file } = board();
    b.set("running");
    b.noteEvent(spawned);
    expect(read(file).status).toBe("waiting");
    const written = statSync(file).ino; // each write renames a new file into place
    const first = read(file).lastActivity;
    await until(() => (new Date().toISOString() !== first ? true : undefined));
    for (let i = 0; i < 31; i++) b.noteEvent(spawned);
    expect(statSync(file).ino).toBe(written);
    // Within a second the activity of the later spawns is written (once).
    await until(() => (read(file).lastActivity !== first ? true : undefined));
    expect(read(file).status).toBe("waiting");
  });

  it("a spawn after the root ran again says waiting at once", () => {
    const { board: b, file } = board();
    b.noteEvent(spawned);
    b.set("running");
    b.noteEvent(spawned);
    expect(read(file).status).toBe("waiting");
    b.cancelWrite();
  });
});
