// Model servers that misbehave on purpose: a stream that is one enormous line, a stream that never ends.
// relm must end with a clear error or a budget stop, never hang.
import { describe, expect, it } from "vitest";
import { runRelm } from "../support/cli.js";
import { onlyJournal } from "../support/journal.js";
import { useRigs } from "../support/scripted.js";

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
