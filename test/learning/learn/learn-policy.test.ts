// When a learning pass is due and whether the budgets cover it: pure decisions, no model.
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/errors.js";
import { LEARN_DEFAULTS, parseLearnSection } from "../../../src/config/learn-config.js";
import {
  budgetRefusal,
  dueByGate,
  dueByTurns,
  estimatePass,
  failureSignature,
  GateFailureStreak,
  type LearnLedger,
} from "../../../src/learning/learn/learn-policy.js";

const gate = (command: string, output: string, exitCode: number | null = 1) => ({
  command,
  exitCode,
  passed: exitCode === 0,
  timedOut: false,
  output,
});

describe("the same gate failing the same way", () => {
  it("counts runs in a row by command and failure, ignoring timings and addresses", () => {
    const streak = new GateFailureStreak();
    const err = (s: string) => `E   ImportError: cannot import name 'parse' (${s})\n1 failed in ${s}s`;
    expect(streak.record({ results: [gate("pytest -q", err("0.31"))] }, 7)).toMatchObject({
      count: 1,
      events: [7],
    });
    const second = streak.record({ results: [gate("pytest -q", err("0.42"))] }, 12);
    expect(second).toEqual({ count: 2, command: "pytest -q", events: [7, 12] });
    expect(dueByGate(2, second)).toBe(true);
    // Once per streak: the third identical failure does not start another pass.
    const third = streak.record({ results: [gate("pytest -q", err("0.5"))] }, 15);
    expect(third.count).toBe(3);
    expect(dueByGate(2, third)).toBe(false);
  });

  it("starts over on a different failure, another gate, or a pass", () => {
    const streak = new GateFailureStreak();
    streak.record({ results: [gate("pytest -q", "ImportError")] });
    expect(streak.record({ results: [gate("pytest -q", "AssertionError")] }).count).toBe(1);
    expect(streak.record({ results: [gate("pytest -q", "AssertionError", 2)] }).count).toBe(1);
    expect(streak.record({ results: [gate("ruff check", "AssertionError", 2)] }).count).toBe(1);
    streak.record({ results: [gate("ruff check", "AssertionError", 2)] });
    expect(streak.record({ results: [gate("ruff check", "", 0)] }).count).toBe(0);
    expect(streak.record({ results: [gate("ruff check", "AssertionError", 2)] }).count).toBe(1);
    // The first gate that failed decides: gates that passed before it do not matter.
    const a = failureSignature(gate("b", "boom at 0x7f3a2c"));
    expect(a).toBe(failureSignature(gate("b", "boom at 0x55e1")));
    expect(dueByGate(0, { count: 2, events: [] })).toBe(false);
  });
});

describe("a pass every N model calls", () => {
  it("is due once N calls passed since the last pass, never when N is 0", () => {
    expect(dueByTurns(3, 2, 0)).toBe(false);
    expect(dueByTurns(3, 3, 0)).toBe(true);
    expect(dueByTurns(3, 5, 3)).toBe(false);
    expect(dueByTurns(3, 6, 3)).toBe(true);
    expect(dueByTurns(0, 100, 0)).toBe(false);
  });
});

describe("budgets decide whether a pass may start", () => {
  const request = { system: "s".repeat(400), messages: [], tools: [], maxOutputTokens: 1000 };
  const ledger = (over: Partial<LearnLedger> = {}): LearnLedger => ({
    limits: {},
    spent: { turns: 3, tokens: 5000, elapsedMs: 10_000, cost: 0.5 },
    learned: { tokens: 0, cost: 0 },
    budget: { share: 0.2 },
    ...over,
  });

  it("estimates from the request's size, the capped answer and the model's price", () => {
    const e = estimatePass(request, { input: 1, output: 10 }, 60_000);
    const input = Math.ceil(JSON.stringify(request).length / 4);
    expect(e.tokens).toBe(input + 1000);
    expect(e.cost).toBeCloseTo((input * 1 + 1000 * 10) / 1e6, 10);
    expect(estimatePass(request, null, 1).cost).toBeNull();
  });

  it("allows a pass with no limits at all", () => {
    expect(budgetRefusal(estimatePass(request, null, 60_000), ledger())).toBeUndefined();
  });

  it("refuses when the session's tokens, time or cost left cannot cover it, naming the limit", () => {
    const e = { tokens: 1200, cost: 0.01, durationMs: 60_000 };
    expect(budgetRefusal(e, ledger({ limits: { maxTokens: 6000 } }))).toMatch(
      /needs up to 1200 tokens; 1000 of --max-tokens 6000 are left/,
    );
    expect(budgetRefusal(e, ledger({ limits: { maxTimeMs: 30_000 } }))).toMatch(/--max-time/);
    expect(budgetRefusal(e, ledger({ limits: { maxCost: 0.505 } }))).toMatch(/--max-cost/);
    expect(budgetRefusal({ ...e, cost: null }, ledger({ limits: { maxCost: 5 } }))).toMatch(
      /price is unknown/,
    );
    expect(budgetRefusal(e, ledger({ limits: { maxTurns: 3 } }))).toMatch(/--max-turns/);
    // Enough everywhere: allowed.
    expect(
      budgetRefusal(
        e,
        ledger({ limits: { maxTokens: 100_000, maxTimeMs: 3_600_000, maxCost: 10, maxTurns: 50 } }),
      ),
    ).toBeUndefined();
  });

  it("keeps learning within its own share and absolute caps", () => {
    const e = { tokens: 1200, cost: 0.01, durationMs: 1 };
    // 20% of 10 000 tokens is 2 000: the first pass fits, a second one would not.
    expect(
      budgetRefusal(
        e,
        ledger({ limits: { maxTokens: 10_000 }, spent: { turns: 1, tokens: 0, elapsedMs: 0, cost: 0 } }),
      ),
    ).toBeUndefined();
    expect(
      budgetRefusal(
        e,
        ledger({
          limits: { maxTokens: 10_000 },
          spent: { turns: 1, tokens: 1200, elapsedMs: 0, cost: 0 },
          learned: { tokens: 1200, cost: 0.01 },
        }),
      ),
    ).toMatch(/learning's budget: 1200 tokens spent, the pass needs up to 1200, the cap is 2000/);
    expect(budgetRefusal(e, ledger({ budget: { share: 1, tokens: 1000 } }))).toMatch(/the cap is 1000/);
    expect(budgetRefusal(e, ledger({ budget: { share: 1, cost: 0.005 } }))).toMatch(/the cap is \$0\.0050/);
    expect(budgetRefusal({ ...e, cost: null }, ledger({ budget: { share: 1, cost: 1 } }))).toMatch(
      /price is unknown/,
    );
  });
});

describe("config.json's learn section", () => {
  const where = "config.json: learn";
  it("fills in the defaults and reads every key", () => {
    expect(parseLearnSection(undefined, where)).toEqual(LEARN_DEFAULTS);
    expect(
      parseLearnSection(
        {
          enabled: true,
          every_turns: 10,
          at_compaction: false,
          on_gate_failure: 3,
          budget: { share: 0.5, tokens: 20_000, cost: 0.25 },
          model: "gpt-5-mini",
          verify_share: 0,
        },
        where,
      ),
    ).toEqual({
      enabled: true,
      everyTurns: 10,
      atCompaction: false,
      onGateFailure: 3,
      budget: { share: 0.5, tokens: 20_000, cost: 0.25 },
      model: "gpt-5-mini",
      verifyShare: 0,
    });
    expect(
      parseLearnSection({ budget: 0.1, on_gate_failure: false, every_turns: false }, where),
    ).toMatchObject({
      budget: { share: 0.1 },
      onGateFailure: 0,
      everyTurns: 0,
    });
    expect(parseLearnSection({ on_gate_failure: true }, where).onGateFailure).toBe(2);
  });

  it("refuses wrong types and unknown keys with the file and key named", () => {
    const bad: [unknown, RegExp][] = [
      [{ every_turn: 5 }, /unknown field\(s\) every_turn/],
      [{ every_turns: 2.5 }, /learn\.every_turns must be a whole number/],
      [{ on_gate_failure: 1 }, /on_gate_failure must be a whole number of 2 or more/],
      [{ at_compaction: "yes" }, /at_compaction must be true or false/],
      [{ budget: 2 }, /fraction .* at most 1/],
      [{ verify_share: 1.5 }, /learn\.verify_share must be a fraction from 0 to 1/],
      [{ budget: { tokens: -1 } }, /budget\.tokens must be a whole number of 1/],
      [{ budget: { usd: 1 } }, /unknown field\(s\) usd/],
      [{ model: "" }, /model must be a model name/],
      [[], /must be an object/],
    ];
    for (const [raw, message] of bad) {
      expect(() => parseLearnSection(raw, where)).toThrow(ConfigError);
      expect(() => parseLearnSection(raw, where)).toThrow(message);
    }
  });
});
