// The calls a subtree's plot draws (src/webui/subtree-usage.ts): every model response journaled in the
// subtree's journals (the agent's own and its children's at any depth), none of a sibling's, in time
// order; a sub-agent that is not in the session is not found, and a damaged journal is left out.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JOURNAL_FILE, Journal, sessionDir } from "../../src/session/index.js";
import { subtreeUsage } from "../../src/webui/subtree-usage.js";
import { tempDir } from "../support/cli.js";

const usage = (cached: number) => ({
  inputTokens: 100,
  outputTokens: 10,
  cachedInputTokens: cached,
  cacheWriteTokens: 0,
  estimated: false,
});

/** A journal in `dir` with `calls` model responses (each with 100 input tokens, `cached` of them cached). */
function agent(dir: string, id: string, calls: number, cached = 0): void {
  const header = {
    id,
    created: new Date().toISOString(),
    cwd: "/tmp",
    title: id,
    provider: "openai",
    model: "m",
    relm: "t",
  };
  const journal = Journal.create(dir, header);
  for (let turn = 1; turn <= calls; turn++)
    journal.append({
      type: "model_response",
      turn,
      text: "",
      toolCalls: [],
      usage: usage(cached),
      cost: 0.01,
      stopReason: "stop",
      requestBytes: 1,
      attempts: 1,
      durationMs: 1,
    });
  journal.close();
}

describe("a subtree's model calls", () => {
  it("its own and its descendants', not its sibling's; the whole tree's; nothing for an unknown agent", () => {
    const home = tempDir();
    try {
      const root = sessionDir(home.path, "root0001");
      agent(root, "root0001", 1);
      agent(join(root, "children", "c1"), "c1", 2, 40);
      agent(join(root, "children", "c1", "children", "g1"), "g1", 1);
      agent(join(root, "children", "c2"), "c2", 3);
      // A damaged journal of a grandchild of c2 is left out, the rest is read.
      const broken = join(root, "children", "c2", "children", "g2");
      agent(broken, "g2", 0);
      writeFileSync(join(broken, JOURNAL_FILE), "not json\n");

      const c1 = subtreeUsage(home.path, "root0001", "c1");
      expect(c1?.top).toBe("c1");
      expect(c1?.agents).toBe(2);
      expect(c1?.calls.map((c) => c.agent).sort()).toEqual(["c1", "c1", "g1"]);
      expect(c1?.calls.find((c) => c.agent === "c1")).toMatchObject({ cached: 40, fresh: 70, cost: 0.01 });
      const times = c1?.calls.map((c) => c.t) ?? [];
      expect(times).toEqual([...times].sort((a, b) => a - b));

      expect(subtreeUsage(home.path, "root0001", "c2")?.calls.map((c) => c.agent)).toEqual([
        "c2",
        "c2",
        "c2",
      ]);
      const all = subtreeUsage(home.path, "root0001", undefined);
      expect(all?.calls).toHaveLength(7);
      expect(new Set(all?.calls.map((c) => c.agent))).toEqual(new Set(["root0001", "c1", "g1", "c2"]));
      expect(subtreeUsage(home.path, "root0001", "nope")).toBeUndefined();
    } finally {
      home.cleanup();
    }
  });

  it("sees a journal's new calls at the next look (journals are kept between looks, by size and time)", () => {
    const home = tempDir();
    try {
      const root = sessionDir(home.path, "root0002");
      agent(root, "root0002", 1);
      agent(join(root, "children", "c1"), "c1", 1);
      expect(subtreeUsage(home.path, "root0002", undefined)?.calls).toHaveLength(2);
      // The child works on: two more calls in its journal.
      const journal = Journal.open(join(root, "children", "c1"));
      for (const turn of [2, 3])
        journal.append({
          type: "model_response",
          turn,
          text: "",
          toolCalls: [],
          usage: usage(5),
          cost: 0.02,
          stopReason: "stop",
          requestBytes: 1,
          attempts: 1,
          durationMs: 1,
        });
      journal.close();
      const again = subtreeUsage(home.path, "root0002", undefined);
      expect(again?.calls).toHaveLength(4);
      expect(again?.calls.filter((c) => c.agent === "c1" && c.cost === 0.02)).toHaveLength(2);
      // A journal damaged since the last look is left out, not answered from what was kept.
      writeFileSync(join(root, "children", "c1", JOURNAL_FILE), "not json\nnot json either\n");
      expect(subtreeUsage(home.path, "root0002", undefined)?.calls.map((c) => c.agent)).toEqual(["root0002"]);
    } finally {
      home.cleanup();
    }
  });
});
