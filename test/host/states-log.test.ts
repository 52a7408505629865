// The listing index (src/host/states/log.ts): a listing reads one log instead of each session's files,
// and a session the log does not know is described from its own files and then logged.
import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listSessions } from "../../src/host/states/discovery.js";
import { compactIfWorthIt, forgetState, indexDir, readLog, STATES_LOG } from "../../src/host/states/log.js";
import { type SessionState, writeState } from "../../src/host/states/state.js";
import { tempDir } from "../support/cli.js";

function state(id: string, title: string): SessionState {
  const t = new Date().toISOString();
  return {
    id,
    title,
    cwd: "/tmp",
    created: t,
    status: "done",
    lastActivity: t,
    tokens: 1,
    cost: null,
    pid: 0,
    detached: true,
  };
}

/** A session folder with a journal (its header only: enough to be listed) and state.json. */
function session(home: string, id: string, title: string): void {
  const dir = join(home, "sessions", id);
  mkdirSync(dir, { recursive: true });
  const header = {
    type: "header",
    v: 1,
    id,
    created: new Date().toISOString(),
    cwd: "/tmp",
    title,
    provider: "openai",
    model: "m",
    relm: "t",
  };
  writeFileSync(join(dir, "journal.jsonl"), `${JSON.stringify(header)}\n`);
  writeState(home, state(id, title));
}

const logLines = (home: string) =>
  readFileSync(join(indexDir(home), STATES_LOG), "utf8")
    .split("\n")
    .filter(Boolean);

describe("the states log", () => {
  it("lists from the log, the last summary of each session winning, without reading state files", async () => {
    const home = tempDir();
    try {
      session(home.path, "aaaa0001", "first");
      session(home.path, "bbbb0002", "second");
      writeState(home.path, state("aaaa0001", "first, renamed"));
      // The state file is not read: the log's summary is listed.
      unlinkSync(join(home.path, "sessions", "aaaa0001", "state.json"));
      const listed = await listSessions(home.path);
      expect(listed.map((s) => s.title).sort()).toEqual(["first, renamed", "second"]);
      expect(logLines(home.path)).toHaveLength(3);
    } finally {
      home.cleanup();
    }
  });

  it("describes a session missing from the log from its files and logs it; drops removed sessions", async () => {
    const home = tempDir();
    try {
      session(home.path, "aaaa0001", "first");
      session(home.path, "bbbb0002", "second");
      unlinkSync(join(indexDir(home.path), STATES_LOG));
      expect((await listSessions(home.path)).length).toBe(2);
      expect([...readLog(home.path).states.keys()].sort()).toEqual(["aaaa0001", "bbbb0002"]);
      // A folder removed by hand is no longer listed, whatever the log says.
      rmSync(join(home.path, "sessions", "bbbb0002"), { recursive: true });
      expect((await listSessions(home.path)).map((s) => s.id)).toEqual(["aaaa0001"]);
      // forget: the next listing describes it from state.json again.
      writeFileSync(
        join(home.path, "sessions", "aaaa0001", "state.json"),
        JSON.stringify(state("aaaa0001", "from its file")),
      );
      forgetState(home.path, "aaaa0001");
      expect((await listSessions(home.path))[0]?.title).toBe("from its file");
    } finally {
      home.cleanup();
    }
  });

  it("is compacted to one line per session once it has grown well past that", () => {
    const home = tempDir();
    try {
      session(home.path, "aaaa0001", "first");
      for (let i = 0; i < 300; i++) writeState(home.path, state("aaaa0001", `title ${i}`));
      const log = readLog(home.path);
      expect(log.lines).toBe(301);
      compactIfWorthIt(home.path, log, new Set(["aaaa0001"]));
      expect(logLines(home.path)).toHaveLength(1);
      expect(readLog(home.path).states.get("aaaa0001")?.state.title).toBe("title 299");
    } finally {
      home.cleanup();
    }
  });

  it("reads lines in any key order, honours forget, skips torn lines and lists run-together ones", () => {
    const home = tempDir();
    try {
      const dir = indexDir(home.path);
      mkdirSync(dir, { recursive: true });
      const a = state("aaaa0001", "first");
      const { id: _id, ...rest } = state("bbbb0002", "reordered");
      const lines = [
        JSON.stringify(a),
        JSON.stringify({ ...rest, id: "bbbb0002" }), // id not first: parsed whole
        JSON.stringify(state("cccc0003", "to forget")),
        JSON.stringify({ id: "cccc0003", forget: true }),
        `${JSON.stringify(state("dddd0004", "torn")).slice(0, 40)}${JSON.stringify(state("eeee0005", "after"))}`,
        JSON.stringify(state("ffff0006", "torn at the end")).slice(0, 50),
      ];
      writeFileSync(join(dir, STATES_LOG), `${lines.join("\n")}\n`);
      const log = readLog(home.path);
      expect([...log.states.keys()].sort()).toEqual(["aaaa0001", "bbbb0002", "dddd0004"]);
      expect(log.states.get("aaaa0001")?.state.title).toBe("first");
      expect(log.states.get("bbbb0002")?.state.title).toBe("reordered");
      // Two writes run together: still listed by its own fields, never a parse error in a listing.
      expect(log.states.get("dddd0004")?.state.title).toBe("(summary unreadable: relm doctor)");
    } finally {
      home.cleanup();
    }
  });
});
