// resumeClaimed (src/cli/session-claim.ts): a saved session is taken for this process before its
// journal is opened or its kernel started, so whoever loses the race has touched nothing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resumeClaimed } from "../../src/cli/session-claim.js";
import { SessionBusyError, SessionServer } from "../../src/host/server.js";
import { pythonsOf, runRelm } from "../support/cli.js";
import { onlyJournal } from "../support/journal.js";
import { type Rig, useRigs } from "../support/scripted.js";

const startRig = useRigs();

async function savedSession(rig: Rig): Promise<string> {
  const first = await runRelm(["run", "--json", "first task"], { env: rig.env, cwd: rig.cwd });
  expect(first.code, first.stderr).toBe(0);
  return (JSON.parse(first.stdout.split("\n")[0] as string) as { id: string }).id;
}

describe("taking a saved session before resuming it", () => {
  it("refuses while another host has the session, having written and started nothing", async () => {
    const rig = await startRig("openai", { script: () => ({ text: "ok" }) });
    const id = await savedSession(rig);
    const journal = join(rig.home, "sessions", id, "journal.jsonl");
    const before = readFileSync(journal, "utf8");
    const other = await SessionServer.listen(rig.home, id);
    try {
      const resumed = resumeClaimed(id.slice(0, 4), {}, { env: rig.env, cwd: rig.cwd }, () => {});
      await expect(resumed).rejects.toBeInstanceOf(SessionBusyError);
      await expect(resumed).rejects.toThrow(
        `session ${id} already has a live host (another relm process is running it): ` +
          `follow it with relm attach ${id}, or stop it with relm stop ${id}`,
      );
      expect(readFileSync(journal, "utf8")).toBe(before);
      expect(pythonsOf(rig.home)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("two resumes at once in one process: one takes the session, the other is refused", async () => {
    const rig = await startRig("openai", { script: () => ({ text: "ok" }) });
    const id = await savedSession(rig);
    const io = { env: rig.env, cwd: rig.cwd };
    const both = await Promise.allSettled([
      resumeClaimed(id, {}, io, () => {}),
      resumeClaimed(id, {}, io, () => {}),
    ]);
    const taken = both.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const refused = both.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
    expect(taken).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(SessionBusyError);
    const [winner] = taken;
    await winner?.session.close();
    await winner?.server.close();
    const events = onlyJournal(rig.home).lines.slice(1);
    expect(events.filter((e) => e.type === "resumed")).toHaveLength(1);
    expect(events.map((e) => e.n)).toEqual(events.map((_, i) => i + 1));
  });
});
