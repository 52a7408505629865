import { afterEach, describe, expect, it } from "vitest";
import { SessionCheckpoints } from "../../src/agent/core/checkpoints.js";
import type { JournalBody } from "../../src/session/types.js";
import { userRepo, type Workspace, write } from "../workspace/helpers.js";

let workspaces: Workspace[] = [];
afterEach(() => {
  for (const w of workspaces) w.cleanup();
  workspaces = [];
});

describe("a session's checkpoints", () => {
  it("journal a refusal once, not at every turn, and checkpoint again once it is lifted", async () => {
    const w = userRepo();
    workspaces.push(w);
    for (let i = 0; i < 8; i++) write(w.cwd, `data/part-${i}.csv`, `${i}\n`);
    const journal: JournalBody[] = [];
    const checkpoints = new SessionCheckpoints(w.home, w.cwd, "s1", (b) => journal.push(b), [], {
      env: w.env,
      maxNewFiles: 5,
      maintain: false,
    });
    for (let turn = 1; turn <= 4; turn++) await checkpoints.beforeCells(turn);
    const warnings = journal.filter((e) => e.type === "checkpoint" && "warning" in e && e.warning);
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toMatch(/8 new files .*\.gitignore/);
    write(w.cwd, ".gitignore", "*.log\nbuild/\ndata/\n");
    await checkpoints.beforeCells(5);
    const last = journal.at(-1) as { type: string; turn: number; commit?: string };
    expect(last.type).toBe("checkpoint");
    expect(last.turn).toBe(5);
    expect(last.commit).toMatch(/^[0-9a-f]{40}$/);
    await checkpoints.close();
  });
});
