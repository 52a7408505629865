// Issue 19, item 6: many `relm run --resume ID` at once must never write one journal twice. One process
// takes the session (its writer lock is taken before the journal is opened), every other one exits 1 at
// once saying who has it and what to do, and nobody hangs.
import { describe, expect, it } from "vitest";
import type { ScriptStep } from "../../../src/scripted/index.js";
import { type CliResult, runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

const ROUNDS = 20;
const RACERS = 10;
/** Generous: 10 relm processes start at once on a machine of 2 shared cores. Hitting it is a hang. */
const PROCESS_TIMEOUT_MS = 90_000;

/**
 * A round's model: every request of the round is held until each racer has either exited or is
 * waiting on the model, so a loser can never start after the winner is done (which would be a second,
 * lawful, turn and not a race). Whoever is held then gets this round's answer.
 */
class Round {
  waiting = 0;
  settled = 0;
  private open!: () => void;
  readonly opened = new Promise<void>((resolve) => {
    this.open = resolve;
  });

  constructor(readonly number: number) {}

  note(): void {
    if (this.waiting + this.settled >= RACERS) this.open();
  }

  async step(): Promise<ScriptStep> {
    this.waiting += 1;
    this.note();
    await this.opened;
    return { text: `answer of round ${this.number}` };
  }
}

describe("relm run --resume raced by many processes", () => {
  it(
    `${RACERS} resumes at once, ${ROUNDS} times: one runs the turn, the rest exit 1 at once, the journal is written once`,
    async () => {
      let round: Round | undefined;
      const rig = await startRig("openai", {
        script: (ctx) => (ctx.index === 0 ? { text: "first answer" } : (round as Round).step()),
      });
      const first = await runRelm(["run", "--json", "first task"], { env: rig.env, cwd: rig.cwd });
      expect(first.code, first.stderr).toBe(0);
      const id = (JSON.parse(first.stdout.split("\n")[0] as string) as { id: string }).id;

      for (let r = 1; r <= ROUNDS; r++) {
        const current = new Round(r);
        round = current;
        const results = await Promise.all(
          Array.from({ length: RACERS }, () =>
            runRelm(["run", "--resume", id, `next ${r}`], {
              env: rig.env,
              cwd: rig.cwd,
              timeoutMs: PROCESS_TIMEOUT_MS,
            })
              .then(
                (result) => result,
                (error: Error): CliResult => ({ code: null, stdout: "", stderr: error.message }),
              )
              .finally(() => {
                current.settled += 1;
                current.note();
              }),
          ),
        );
        const context = `round ${r}:\n${results.map((x) => `[${x.code}] ${x.stderr.trim()}`).join("\n")}`;
        const winners = results.filter((x) => x.code === 0);
        expect(winners.length, context).toBe(1);
        expect(winners[0]?.stdout, context).toBe(`answer of round ${r}\n`);
        for (const loser of results.filter((x) => x.code !== 0)) {
          expect(loser.code, context).toBe(1);
          expect(loser.stderr, context).toBe(
            `relm: session ${id} already has a live host (another relm process is running it): ` +
              `follow it with relm attach ${id}, or stop it with relm stop ${id}\n`,
          );
        }
        expect(current.waiting, context).toBe(1); // one model request: only one process ran the turn
      }

      const { lines } = onlyJournal(rig.home);
      const events = lines.slice(1);
      expect(events.map((e) => e.n)).toEqual(events.map((_, i) => i + 1));
      const finals = events.filter((e) => e.type === "final").map((e) => e.text);
      expect(finals).toEqual([
        "first answer",
        ...Array.from({ length: ROUNDS }, (_, i) => `answer of round ${i + 1}`),
      ]);
      expect(events.filter((e) => e.type === "resumed")).toHaveLength(ROUNDS);
      expect(rig.model.problems).toEqual([]);
    },
    ROUNDS * PROCESS_TIMEOUT_MS,
  );
});

describe("a stopped session revived by many processes at once", () => {
  const busy = (id: string) =>
    `relm: session ${id} already has a live host (another relm process is running it): ` +
    `follow it with relm attach ${id}, or stop it with relm stop ${id}\n`;

  it("relm run --detach --resume: one host starts it, the others exit 1 saying so", async () => {
    const rig = await startRig("openai", { script: () => ({ text: "ok" }) });
    const first = await runRelm(["run", "--json", "first task"], { env: rig.env, cwd: rig.cwd });
    expect(first.code, first.stderr).toBe(0);
    const id = (JSON.parse(first.stdout.split("\n")[0] as string) as { id: string }).id;
    try {
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          runRelm(["run", "--detach", "--resume", id, `next ${i}`], { env: rig.env, cwd: rig.cwd }),
        ),
      );
      const context = results.map((x) => `[${x.code}] ${x.stdout.trim()} ${x.stderr.trim()}`).join("\n");
      expect(
        results.filter((x) => x.code === 0).map((x) => x.stdout),
        context,
      ).toEqual([`${id}\n`]);
      for (const loser of results.filter((x) => x.code !== 0)) {
        expect(loser.code, context).toBe(1);
        expect(loser.stderr, context).toBe(busy(id));
      }
    } finally {
      await runRelm(["stop", id], { env: rig.env });
    }
  });

  it("relm send: every message reaches the session, whichever send's host took it", async () => {
    const rig = await startRig("openai", { script: (ctx) => ({ text: `seen: ${ctx.lastUserText}` }) });
    const first = await runRelm(["run", "--json", "first task"], { env: rig.env, cwd: rig.cwd });
    expect(first.code, first.stderr).toBe(0);
    const id = (JSON.parse(first.stdout.split("\n")[0] as string) as { id: string }).id;
    const texts = Array.from({ length: 5 }, (_, i) => `message number ${i}`);
    try {
      const results = await Promise.all(
        texts.map((text) => runRelm(["send", id, text], { env: rig.env, cwd: rig.cwd })),
      );
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      // Each message is journaled when its turn takes it (or when it reaches a running turn).
      const missing = () => texts.filter((text) => !onlyJournal(rig.home).raw.includes(text));
      await until(() => (missing().length === 0 ? true : undefined), 60_000).catch(() => undefined);
      expect(missing()).toEqual([]);
      const events = onlyJournal(rig.home).lines.slice(1);
      expect(events.map((e) => e.n)).toEqual(events.map((_, i) => i + 1));
    } finally {
      await runRelm(["stop", id], { env: rig.env });
    }
  });
});
