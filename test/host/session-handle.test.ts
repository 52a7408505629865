// SessionHandle (src/host/session-handle.ts), the one way every front end holds a session: here against
// real host processes started by relm itself, over the session's socket (after `npm run build`).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/core/events.js";
import { listAgents, ROOT, runRelm } from "../support/cli.js";
import { onlyJournal } from "../support/journal.js";
import { useRigs } from "../support/scripted.js";
import { until } from "../support/wait.js";

const startRig = useRigs();

// The built module: hosts it starts and revives run the built CLI beside it (dist/cli/relm.cjs).
const { SessionHandle } = (await import(
  join(ROOT, "dist/host/session-handle.js")
)) as typeof import("../../src/host/session-handle.js");

/** The journal's event numbers (the header has none). */
function journalNs(home: string): number[] {
  return onlyJournal(home)
    .lines.map((l) => (l as { n?: number }).n)
    .filter((n): n is number => typeof n === "number");
}

/** Root event numbers among `events`, in the order they arrived. */
function rootNs(events: AgentEvent[]): number[] {
  return events.flatMap((e) => (!e.agent && "n" in e && typeof e.n === "number" ? [e.n] : []));
}

const finals = (events: AgentEvent[]) => events.filter((e) => e.type === "final" && !e.agent).length;

describe("SessionHandle", () => {
  it("revives an ended session, replays only what it has not seen, follows live work, sends, and stops it", async () => {
    const rig = await startRig("openai", { script: () => ({ text: "noted" }) });
    const ran = await runRelm(["run", "the first task"], { env: rig.env, cwd: rig.cwd });
    expect(ran.code, ran.stderr).toBe(0);
    const id = onlyJournal(rig.home).dir.split("/").at(-1) as string;

    const seen: AgentEvent[] = [];
    const handle = new SessionHandle({ home: rig.home, id, env: rig.env, onEvent: (e) => seen.push(e) });
    try {
      // Nothing serves it: no connection, and its history comes from the journal.
      expect(await handle.connect()).toBe(false);
      handle.replayJournal();
      const history = journalNs(rig.home);
      expect(rootNs(seen)).toEqual(history);
      expect(handle.lastN).toBe(history.at(-1));

      // Revived with a message: the new host's events follow the history, none of it told twice.
      await handle.revive({ message: "the second task" });
      expect(handle.live).toBe(true);
      await until(() => finals(seen) >= 2 || undefined, 30_000);
      await until(async () => ((await handle.call("info")).busy ? undefined : true), 30_000);
      // The first checkpoint may be journaled just after the turn's end: wait for the handle to have it.
      await until(() => rootNs(seen).length === journalNs(rig.home).length || undefined, 30_000).catch(
        () => undefined,
      );
      const afterRevive = rootNs(seen);
      expect(new Set(afterRevive).size).toBe(afterRevive.length);
      expect(afterRevive).toEqual([...afterRevive].sort((a, b) => a - b));
      expect(afterRevive).toEqual(journalNs(rig.home));

      // A second handle that has seen up to event k gets exactly the rest, then both follow a new turn.
      const k = afterRevive[Math.floor(afterRevive.length / 2)] as number;
      const late: AgentEvent[] = [];
      const other = new SessionHandle({ home: rig.home, id, after: k, onEvent: (e) => late.push(e) });
      expect(await other.connect()).toBe(true);
      expect(rootNs(late)).toEqual(afterRevive.filter((n) => n > k));

      expect((await handle.send("the third task")).delivered).toBe("now");
      await until(() => (finals(seen) >= 3 && finals(late) >= 1) || undefined, 30_000);
      await until(async () => ((await handle.call("info")).busy ? undefined : true), 30_000);
      // Events may still follow the turn's end (the first checkpoint, taken while the first cell ran):
      // both handles get every one the journal has.
      const all = await until(() => {
        const ns = journalNs(rig.home);
        return rootNs(seen).length === ns.length && rootNs(late).length === ns.filter((n) => n > k).length
          ? ns
          : undefined;
      }, 30_000).catch(() => journalNs(rig.home));
      expect(rootNs(seen)).toEqual(all);
      expect(rootNs(late)).toEqual(all.filter((n) => n > k));
      other.close();

      await handle.stop();
      expect(handle.live).toBe(false);
      expect(await handle.connect()).toBe(false);
      await expect(handle.call("info")).rejects.toThrow(/is not running/);
    } finally {
      handle.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("a host that cannot start (revived with a blank message) exits and says why; the session stays free", async () => {
    // The host bound the session's socket first thing, then refused the blank message, and stayed alive
    // holding the socket and the lock: the launcher (relm send, a front end reviving) waited forever for
    // a status answer, and every later attempt to continue the session found it "already live".
    const rig = await startRig("openai", { script: () => ({ text: "noted" }) });
    const ran = await runRelm(["run", "the first task"], { env: rig.env, cwd: rig.cwd });
    expect(ran.code, ran.stderr).toBe(0);
    const id = onlyJournal(rig.home).dir.split("/").at(-1) as string;
    const handle = new SessionHandle({ home: rig.home, id, env: rig.env });
    try {
      const outcome = await Promise.race([
        handle.revive({ message: "   " }).then(
          () => "started",
          (error: Error) => error.message,
        ),
        new Promise<string>((r) => setTimeout(() => r("still waiting"), 45_000)),
      ]);
      expect(outcome).toMatch(
        /the session host exited \(code 2\) before it was ready:[\s\S]*the task is blank/,
      );
      const listed = await listAgents<{ id: string; live: boolean }>(rig.env);
      expect(listed.find((a) => a.id === id)?.live).toBe(false);
      // Free for the next one: a real message continues it.
      const next = await runRelm(["run", "--resume", id, "the second task"], { env: rig.env, cwd: rig.cwd });
      expect(next.code, next.stderr).toBe(0);
    } finally {
      handle.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  }, 120_000);
});
