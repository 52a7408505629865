// The line that ends a turn says what that turn spent: its own model calls, tokens and time, not the
// session's totals so far; after a resume as well.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/core/events.js";
import { TurnSpend } from "../../../src/tui/transcript/turn-spend.js";
import { runRelm } from "../../support/cli.js";
import { sessionIds, useTui } from "../../support/tui.js";
import { until } from "../../support/wait.js";

const { startRig, open } = useTui();

const FOOTER = /✓ (\d+) model calls? · ([\d,]+) tokens · /g;

/** The calls and tokens of every end-of-turn line in `text`, in order. */
function footers(text: string): { calls: number; tokens: number }[] {
  return [...text.matchAll(FOOTER)].map((m) => ({
    calls: Number(m[1]),
    tokens: Number((m[2] as string).replaceAll(",", "")),
  }));
}

describe("terminal UI end of turn", () => {
  it("shows each turn's own calls and tokens, not the session's totals, also after a resume", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "print('one')" },
        { text: "first done" },
        { text: "second done" },
        { code: "print('three')" },
        { text: "third done" },
      ],
    });
    const ui = open(rig, [], { rows: 50 });
    await ui.waitFor("new session");
    await ui.type("first");
    await ui.press("enter");
    await ui.waitFor(/first done[\s\S]*✓ \d+ model calls? ·/);
    await ui.type("second");
    await ui.press("enter");
    await ui.waitFor(/second done[\s\S]*✓ \d+ model calls? ·/);
    const [first, second] = footers(ui.allText());
    expect(first?.calls).toBe(2);
    expect(second?.calls).toBe(1);
    // The second turn's tokens are its one call's, fewer than both turns' together.
    expect(second?.tokens).toBeGreaterThan(0);
    expect(second?.tokens).toBeLessThan((first?.tokens ?? 0) + (second?.tokens ?? 0));
    await ui.press("ctrl-d");
    expect((await ui.waitForExit()).exitCode).toBe(0);
    const [id] = sessionIds(rig.home);
    await until(async () => {
      const r = await runRelm(["agents", "--json"], { env: rig.env, cwd: rig.cwd });
      return r.stdout.includes('"live":false') ? true : undefined;
    });

    // Cost is worded one way in every view: "unpriced" when the model's prices are unknown.
    const logs = await runRelm(["logs", id as string], { env: rig.env, cwd: rig.cwd });
    expect(logs.stdout).toMatch(/✓ .*unpriced/);
    expect(`${logs.stdout}${ui.allText()}`).not.toContain("cost unknown");
    expect(ui.allText()).toMatch(/✓ 1 model call · [\d,]+ tokens · [\d.]+ m?s · unpriced/);

    const back = open(rig, ["--continue"], { rows: 50 });
    await back.waitFor("second done", { where: "all" });
    // The history's lines say the same as they did live.
    expect(footers(back.allText()).map((f) => f.calls)).toEqual([2, 1]);
    await back.type("third");
    await back.press("enter");
    await back.waitFor(/third done[\s\S]*✓ \d+ model calls? ·/);
    expect(footers(back.allText()).map((f) => f.calls)).toEqual([2, 1, 2]);
    expect(id).toBeDefined();
  });
});

describe("terminal UI end of turn after an interrupt", () => {
  it("does not count the interrupted turn's model calls in the next turn's line", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "import time\nprint('waiting', flush=True)\ntime.sleep(120)" }, { text: "after it" }],
    });
    const ui = open(rig, [], { cols: 100, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("wait a while");
    await ui.press("enter");
    await ui.waitFor(/┊ waiting/);
    await ui.press("escape");
    await ui.waitFor("■ interrupted by the user");
    await ui.type("now answer");
    await ui.press("enter");
    await ui.waitFor(/after it[\s\S]*✓ \d+ model calls? ·/, { where: "all" });
    // The interrupted turn made one call (the cell's); this turn made one.
    expect(footers(ui.allText()).map((f) => f.calls)).toEqual([1]);
  });
});

describe("a turn's own time", () => {
  it("after a host died mid-turn and a resume, the next turn's time starts at its own message", () => {
    const spend = new TurnSpend();
    const at = (s: number) => new Date(Date.UTC(2026, 11, 5, 10, 0, s)).toISOString();
    const spent = { turns: 1, tokens: 100, elapsedMs: 1000, cost: null };
    // A turn whose host was killed in its cell: no final, no error, no interrupted.
    spend.apply({ n: 1, t: at(0), type: "user", text: "wait" } as AgentEvent);
    spend.apply({ n: 2, t: at(0), type: "model_request", turn: 1, messages: 1 } as AgentEvent);
    // Two minutes later the next message brings the session back in a new host.
    spend.apply({ n: 3, t: at(120), type: "resumed" } as unknown as AgentEvent);
    spend.apply({ n: 4, t: at(120), type: "user", text: "go on" } as AgentEvent);
    const own = spend.apply({ n: 5, t: at(121), type: "final", text: "ok", spent } as AgentEvent);
    expect(own?.elapsedMs).toBe(1000);
  });
});
