// Reasoning end to end: relm run against the scripted model in the Responses and Anthropic formats, with
// a real kernel. The scripted server refuses reasoning that comes back changed, so a finished run means
// every reasoning item and thinking block was sent back as received.
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

type Line = Record<string, unknown>;
const responses = (lines: Line[]) => lines.filter((l) => l.type === "model_response");

describe("reasoning across turns and sessions", () => {
  it("a resumed Responses session sends every earlier reasoning item back unchanged", async () => {
    const rig = await startRig(
      "openai",
      {
        script: [
          { reasoning: "Start x at 41.", code: "x = 41" },
          { reasoning: "Add one.", code: "x += 1" },
          { reasoning: "Report it.", text: "x is 42" },
        ],
      },
      { env: { RELM_PROVIDER: "openai-responses", RELM_MODEL: "o4-mini" } },
    );
    const first = await runRelm(["run", "--max-turns", "2", "make x 42"], { env: rig.env, cwd: rig.cwd });
    expect(first.code, first.stderr).toBe(3);
    const before = onlyJournal(rig.home);
    const id = String(before.lines[0]?.id);
    const journaled = responses(before.lines).map((l) => l.reasoning as { format: string; items: Line[] });
    expect(journaled.map((r) => r.format)).toEqual(["openai-responses", "openai-responses"]);

    // Budgets hold across resumes (docs/budgets.md): the two calls made count, so one more needs a higher limit.
    const resumed = await runRelm(["run", "--resume", id, "--max-turns", "3", "go on"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe("x is 42");
    expect(rig.model.problems).toEqual([]);
    const third = rig.model.requests[2]?.rawBody ?? "";
    for (const r of journaled) expect(third).toContain(JSON.stringify(r.items[0]));
    expect(third.startsWith((rig.model.requests[1]?.rawBody ?? "").slice(0, -2))).toBe(true);
    const usage = responses(onlyJournal(rig.home).lines)[0]?.usage as Line;
    expect(usage.reasoningTokens).toBe(Math.ceil("Start x at 41.".length / 4));
  });

  it("a Responses answer cut off at max_output_tokens is reported like the other formats", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ text: "y".repeat(120_000) }, { text: "never asked" }] },
      { env: { RELM_PROVIDER: "openai-responses", RELM_MODEL: "gpt-4.1" } },
    );
    const result = await runRelm(["run", "--max-tokens", "20000", "write a lot"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    // What was left of --max-tokens capped the answer, so the run stops over budget, not "done".
    expect(result.code, result.stderr).toBe(3);
    const cap = (rig.model.requests[0]?.body as Line | undefined)?.max_output_tokens as number;
    expect(cap).toBeGreaterThan(0);
    expect(cap).toBeLessThan(20_000);
    const lines = onlyJournal(rig.home).lines;
    expect(responses(lines)[0]?.stopReason).toBe("max_output_tokens");
    expect(lines.filter((l) => l.type === "truncated")).toEqual([
      expect.objectContaining({ by: "budget", action: "stopped", maxOutputTokens: cap }),
    ]);
    expect(rig.model.requests).toHaveLength(1);
  });
});

describe("--thinking", () => {
  it("config thinking turns Anthropic thinking on, signed blocks go back; --thinking off sends none", async () => {
    const rig = await startRig(
      "anthropic",
      {
        script: [
          { reasoning: "Print one.", code: "print(1)" },
          { text: "printed" },
          { code: "print(2)" },
          { text: "printed again" },
        ],
      },
      { config: { thinking: "medium" } },
    );
    const on = await runRelm(["run", "print one"], { env: rig.env, cwd: rig.cwd });
    expect(on.code, on.stderr).toBe(0);
    expect(rig.model.problems).toEqual([]);
    const [a, b] = rig.model.requests.map((r) => r.body as { thinking?: unknown; messages: Line[] });
    expect(a?.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    const answer = b?.messages[1]?.content as Line[];
    expect(answer.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
    expect(answer[0]?.thinking).toBe("Print one.");

    const off = await runRelm(["run", "--thinking", "off", "print two"], { env: rig.env, cwd: rig.cwd });
    expect(off.code, off.stderr).toBe(0);
    for (const r of rig.model.requests.slice(2)) expect(r.rawBody).not.toContain('"thinking"');
  });

  it("a resumed session leaves out a thinking block the journal redacted, and journals a warning saying so", async () => {
    const secret = "tok-7f3a9c2e51d84b06";
    const rig = await startRig(
      "anthropic",
      {
        script: [
          { reasoning: `The token is ${secret}; print one.`, code: "print(1)" },
          { text: "printed" },
          { text: "resumed fine" },
        ],
      },
      { config: { thinking: "medium" }, env: { MY_SERVICE_TOKEN: secret } },
    );
    const first = await runRelm(["run", "print one"], { env: rig.env, cwd: rig.cwd });
    expect(first.code, first.stderr).toBe(0);
    const before = onlyJournal(rig.home);
    const journaled = responses(before.lines)[0]?.reasoning as { items: Line[] };
    // The journal never holds the secret, and the block it changed is marked as one that cannot verify.
    expect(JSON.stringify(before.lines)).not.toContain(secret);
    expect(journaled.items[0]).toMatchObject({ type: "thinking", signature: "" });

    const id = String(before.lines[0]?.id);
    const resumed = await runRelm(["run", "--resume", id, "again"], { env: rig.env, cwd: rig.cwd });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe("resumed fine");
    expect(resumed.stderr).toMatch(/⚠ 1 thinking block\(s\) left out of the request/);
    expect(rig.model.problems).toEqual([]);
    const last = rig.model.requests.at(-1)?.body as { thinking?: unknown; messages: { content: Line[] }[] };
    expect(last.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(last.messages[1]?.content.map((b) => b.type)).toEqual(["tool_use"]);
    const warnings = onlyJournal(rig.home).lines.filter((l) => l.type === "warning");
    expect(warnings).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^1 thinking block\(s\) left out of the request to the model/),
      }),
    ]);
  });

  it("a bad level is a usage error naming the flag and its choices", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const result = await runRelm(["run", "--thinking", "extreme", "hi"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('relm: --thinking must be one of off, low, medium, high, got "extreme"');
    expect(rig.model.requests).toHaveLength(0);
  });
});
