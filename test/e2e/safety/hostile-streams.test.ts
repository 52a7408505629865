// Model servers that misbehave on purpose: a stream that is one enormous line, a stream that never ends.
// relm must end with a clear error or a budget stop, never hang.
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

/** One chat-completions chunk whose tool call carries `codeChars` characters of code, as one `data:` line. */
function hugeToolCallStream(codeChars: number): string[] {
  const args = JSON.stringify({ code: `x = "${"a".repeat(codeChars)}"` });
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: "chatcmpl-huge",
      object: "chat.completion.chunk",
      created: 0,
      model: "scripted",
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  const line = chunk({
    tool_calls: [
      { index: 0, id: "call_1", type: "function", function: { name: "ipython", arguments: args } },
    ],
  });
  // Written in 1 MB pieces, as a real server's body arrives.
  const pieces: string[] = [];
  for (let i = 0; i < line.length; i += 1024 * 1024) pieces.push(line.slice(i, i + 1024 * 1024));
  return [...pieces, chunk({}, "tool_calls"), "data: [DONE]\n\n"];
}

describe("a stream with one enormous line", () => {
  it("a 50 MB tool call in one data: line ends the run with a clear error, exit 1", async () => {
    const rig = await startRig("openai", { script: [{ raw: hugeToolCallStream(50 * 1024 * 1024) }] });
    const result = await runRelm(["run", "hi"], { env: rig.env, cwd: rig.cwd, timeoutMs: 120_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/malformed: one event was larger than 16 MB.*maxStreamEventMB/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Not retried: the same server would send the same.
    expect(rig.model.requests).toHaveLength(1);
    expect(onlyJournal(rig.home).lines.some((l) => l.type === "model_error")).toBe(true);
  }, 150_000);

  it("config.json's maxStreamEventMB sets the cap", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ raw: hugeToolCallStream(2 * 1024 * 1024) }] },
      { config: { maxStreamEventMB: 1 } },
    );
    const result = await runRelm(["run", "hi"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/one event was larger than 1 MB/);
  });
});

/** A price at which the prompt costs next to nothing and each output token $0.0001. */
const PRICES = { prices: { scripted: { input: 0.01, output: 100 } } };

describe("--max-cost while the answer streams", () => {
  it.each(["openai", "anthropic"] as const)(
    "%s: a model that streams forever is stopped at the budget, exit 3",
    async (format) => {
      const rig = await startRig(format, { script: [{ endless: true }] }, { config: PRICES });
      const result = await runRelm(["run", "--max-cost", "0.5", "talk"], { env: rig.env, cwd: rig.cwd });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/--max-cost/);
      const { lines } = onlyJournal(rig.home);
      const error = lines.find((l) => l.type === "model_error");
      expect(error).toMatchObject({ kind: "budget" });
      const stop = lines.find((l) => l.type === "budget_stop");
      expect(stop).toMatchObject({ budget: "max-cost" });
      // Stopped at the delta that crossed the limit: a few tokens over at most.
      const cost = (stop?.spent as { cost: number } | undefined)?.cost;
      expect(cost).toBeGreaterThan(0.49);
      expect(cost).toBeLessThan(0.5 + 0.001);
    },
  );

  it("a request whose worst case does not fit what is left is capped or not sent; the spend stays within", async () => {
    const rig = await startRig(
      "openai",
      {
        script: [
          // About 5 000 output tokens: $0.50.
          { code: `x = "${"a".repeat(20_000)}"` },
          // About 10 000 more if nothing capped it: $1 more.
          { code: `y = "${"b".repeat(40_000)}"` },
          { text: "never reached" },
        ],
      },
      { config: PRICES },
    );
    const result = await runRelm(["run", "--max-cost", "1", "spend"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/--max-cost/);
    // The second answer was asked for with a cap that what was left could pay for.
    const cap = (JSON.parse(rig.model.requests[1]?.rawBody ?? "{}") as { max_tokens?: number }).max_tokens;
    expect(cap).toBeGreaterThan(4_000);
    expect(cap).toBeLessThan(5_100);
    // No third request: even a minimal answer would not fit.
    expect(rig.model.requests).toHaveLength(2);
    const stop = onlyJournal(rig.home).lines.find((l) => l.type === "budget_stop");
    expect(stop).toMatchObject({ budget: "max-cost" });
    expect((stop?.spent as { cost: number } | undefined)?.cost).toBeLessThanOrEqual(1);
  });
});
