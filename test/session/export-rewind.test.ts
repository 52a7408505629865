// Exports of a rewound session (/rewind): they show the conversation as it is now — the rewound turns
// gone, a note where they were saying so — while the jsonl export keeps the whole journal.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportSession, Journal } from "../../src/session/index.js";
import { header, tempDir } from "./helpers.js";

const usage = {
  inputTokens: 100,
  outputTokens: 20,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  estimated: false,
};

/** Three messages with an answer and a cell each; rewound to before the second; then a new second. */
function rewoundSession(): string {
  const dir = join(tempDir(), "abcd2345");
  const j = Journal.create(dir, header());
  let turn = 0;
  const exchange = (message: string, code: string, answer: string) => {
    const user = j.append({ type: "user", text: message });
    turn++;
    j.append({ type: "cell", turn, callId: `c${turn}`, code });
    j.append({
      type: "cell_output",
      turn,
      callId: `c${turn}`,
      executionCount: turn,
      status: "ok",
      output: `${code} ran\n`,
      outputChars: 10,
      truncated: false,
      imageFiles: [],
      durationMs: 1,
    });
    j.append({
      type: "model_response",
      turn,
      text: answer,
      toolCalls: [],
      usage,
      cost: 0.001,
      stopReason: "stop",
      requestBytes: 1,
      attempts: 1,
      durationMs: 1,
    });
    return user.n;
  };
  exchange("first question", "one()", "first answer");
  const second = exchange("second question", "two()", "second answer");
  exchange("third question", "three()", "third answer");
  j.append({ type: "rewind", to: second, text: "second question", files: true, note: "[relm] rewound" });
  exchange("second question, better", "two_again()", "better answer");
  j.close();
  return dir;
}

describe("exporting a rewound session", () => {
  it("md shows the conversation as it is now, with a note where turns were rewound", async () => {
    const md = await exportSession(rewoundSession(), "md");
    for (const kept of [
      "first question",
      "one()",
      "first answer",
      "second question, better",
      "better answer",
    ])
      expect(md).toContain(kept);
    for (const gone of ["second answer", "third question", "three()", "third answer"])
      expect(md).not.toContain(gone);
    expect(md).toContain(
      'Rewound: 2 message(s) from "second question" on, and what followed, were removed from the conversation and the files put back as they were then',
    );
    // The note stands where the rewound turns were: after the first answer, before the new message.
    expect(md.indexOf("first answer")).toBeLessThan(md.indexOf("Rewound:"));
    expect(md.indexOf("Rewound:")).toBeLessThan(md.indexOf("second question, better"));
  });

  it("ipynb has only the cells still in the conversation; jsonl keeps the whole journal", async () => {
    const dir = rewoundSession();
    const nb = JSON.parse(await exportSession(dir, "ipynb"));
    const code = nb.cells
      .filter((c: { cell_type: string }) => c.cell_type === "code")
      .map((c: { source: string[] }) => c.source.join(""));
    expect(code).toEqual(["one()", "two_again()"]);
    const jsonl = await exportSession(dir, "jsonl");
    expect(jsonl).toBe(readFileSync(join(dir, "journal.jsonl"), "utf8"));
    expect(jsonl).toContain("third answer");
  });
});
