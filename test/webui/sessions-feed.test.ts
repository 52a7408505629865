// The sessions page's feed (src/webui/sessions-feed.ts) and the stamp it compares before listing again
// (listingStamp): the stamp holds while nothing changes, and every change a listing would show — a state
// written, a session added or removed — changes it, so the feed pushes the new list.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listingStamp, listSessions } from "../../src/host/states/discovery.js";
import { type SessionState, writeState } from "../../src/host/states/state.js";
import { Journal, sessionDir } from "../../src/session/index.js";
import { SessionsFeed } from "../../src/webui/sessions-feed.js";
import { tempDir } from "../support/cli.js";
import { until } from "../support/wait.js";

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

/** A session as relm leaves one: its journal (header only) and its summary, logged. */
function session(home: string, id: string, title: string): void {
  const created = new Date().toISOString();
  const header = { id, created, cwd: "/tmp", title, provider: "openai", model: "m1", relm: "t" };
  Journal.create(sessionDir(home, id), header).close();
  writeState(home, state(id, title));
}

describe("the sessions feed", () => {
  it("the stamp holds over listings of an unchanged home and moves with every change", async () => {
    const home = tempDir();
    try {
      session(home.path, "aaaa0001", "first");
      await listSessions(home.path);
      const before = listingStamp(home.path);
      await listSessions(home.path);
      expect(listingStamp(home.path)).toBe(before);
      writeState(home.path, state("aaaa0001", "renamed"));
      const renamed = listingStamp(home.path);
      expect(renamed).not.toBe(before);
      session(home.path, "bbbb0002", "second");
      const added = listingStamp(home.path);
      expect(added).not.toBe(renamed);
      rmSync(join(home.path, "sessions", "bbbb0002"), { recursive: true });
      expect(listingStamp(home.path)).not.toBe(added);
    } finally {
      home.cleanup();
    }
  });

  it("primed before any page opens, the first page is sent the list at once", async () => {
    const home = tempDir();
    try {
      session(home.path, "cccc0003", "primed");
      const feed = new SessionsFeed(home.path);
      await feed.prime();
      const got: string[] = [];
      const stop = feed.subscribe((json) => got.push(json));
      // Called within subscribe, before any listing of its own could have ended.
      expect(got).toHaveLength(1);
      expect(JSON.parse(got[0] as string)).toMatchObject([{ id: "cccc0003", title: "primed", model: "m1" }]);
      stop();
    } finally {
      home.cleanup();
    }
  });

  it("pushes the list at once, then each change, with the model from the journal", async () => {
    const home = tempDir();
    const feed = new SessionsFeed(home.path);
    const seen: { id: string; title: string; model: string }[][] = [];
    session(home.path, "aaaa0001", "first");
    const stop = feed.subscribe((json) => seen.push(JSON.parse(json)));
    try {
      await until(() => seen.at(-1)?.find((s) => s.id === "aaaa0001"));
      expect(seen.at(-1)?.[0]?.model).toBe("m1");
      writeState(home.path, state("aaaa0001", "renamed"));
      await until(() => seen.at(-1)?.find((s) => s.title === "renamed"));
      session(home.path, "bbbb0002", "second");
      await until(() => (seen.at(-1)?.length === 2 ? true : undefined));
      rmSync(join(home.path, "sessions", "bbbb0002"), { recursive: true });
      await until(() => (seen.at(-1)?.length === 1 ? true : undefined));
      // A page that opens again is drawn at once from the last list.
      const again: string[] = [];
      feed.subscribe((json) => again.push(json))();
      expect(JSON.parse(again[0] ?? "[]")).toHaveLength(1);
    } finally {
      stop();
      home.cleanup();
    }
  });
});
