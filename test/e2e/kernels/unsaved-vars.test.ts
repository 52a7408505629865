// Variables a kernel release would lose are said where people look (issue 24, goal 5): `relm agents`
// (its table and --json) names them; a large one its background writer is saving is not among them.
import { describe, expect, it } from "vitest";
import { listAgents, runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

function listed(rig: Rig): Promise<{ id: string; unsaved?: string[] }[]> {
  return listAgents(rig.env);
}

describe.skipIf(process.platform !== "linux")("variables that would not survive a kernel release", () => {
  it("relm agents names them, in --json and in the table, and not one saved in the background", async () => {
    // Caps lowered through config.json: a 100 000-element list (~0.6 MB pickled) is over the per-variable
    // cap but within the large cap (saved by the background writer); 16 MB of bytes is over both.
    const config = { snapshotMaxVariableMB: 0.05, snapshotMaxLargeMB: 8 };
    const rig = await startRig(
      "openai",
      {
        script: [
          { code: "big = list(range(100_000))\ntoo_big = bytes(16 << 20)\nsmall = 1" },
          { text: "done" },
        ],
      },
      { config },
    );
    const started = await runRelm(["run", "--detach", "make data"], { env: rig.env, cwd: rig.cwd });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();

    const row = await until(async () => {
      const found = (await listed(rig)).find((s) => s.id === id);
      return found?.unsaved ? found : undefined;
    }, 60_000);
    expect(row.unsaved).toEqual(["too_big"]);
    // What the listing says is what the journal's snapshot said: too_big skipped for good, big pending.
    const snapshot = onlyJournal(rig.home)
      .lines.filter((l) => l.type === "snapshot")
      .at(-1) as unknown as { skipped: { name: string; reason: string }[] };
    expect(snapshot.skipped.find((s) => s.name === "too_big")?.reason).toMatch(/too large to snapshot/);

    const table = await runRelm(["agents"], { env: rig.env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain("(1 var unsaved)");
    expect(table.stdout).toContain(`${id}: 1 var won't survive a kernel release: too_big`);

    const stopped = await runRelm(["stop", id], { env: rig.env });
    expect(stopped.code, stopped.stderr).toBe(0);
  });
});
