import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportSession, Journal, type JournalEventOf } from "../../src/session/index.js";
import { header, tempDir } from "./helpers.js";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const usage = {
  inputTokens: 100,
  outputTokens: 20,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  estimated: false,
};
const spent = { turns: 2, tokens: 240, elapsedMs: 4200, cost: 0.0042 };
const FULL = `${Array.from({ length: 400 }, (_, i) => `row ${i}`).join("\n")}\n`;

type CellOutput = Omit<JournalEventOf<"cell_output">, "n" | "t">;

function output(callId: string, executionCount: number, extra: Partial<CellOutput>): CellOutput {
  return {
    type: "cell_output",
    turn: 1,
    callId,
    executionCount,
    status: "ok",
    output: "",
    outputChars: 0,
    truncated: false,
    imageFiles: [],
    durationMs: 3,
    ...extra,
  };
}

/** A session with an ok cell, a truncated one, a failing one and one that drew an image. */
function session(): string {
  const dir = join(tempDir(), "abcd2345");
  const j = Journal.create(dir, header());
  j.append({ type: "user", text: "Inspect the data <script>alert(1)</script>" });
  j.append({
    type: "model_response",
    turn: 1,
    text: "Looking at the rows.",
    toolCalls: [],
    usage,
    cost: 0.002,
    stopReason: "tool_calls",
    requestBytes: 500,
    attempts: 1,
    durationMs: 10,
  });
  j.append({ type: "cell", turn: 1, callId: "a", code: "x = 1\nprint(x)" });
  j.append(output("a", 1, { output: "1\n", outputChars: 2 }));
  j.append({ type: "cell", turn: 1, callId: "b", code: "for i in range(400):\n    print('row', i)" });
  const file = j.writeOutputFile("cell-2.txt", FULL);
  const capped = `${FULL.slice(0, 40)}\n... [output truncated] ...\n${FULL.slice(-40)}`;
  j.append(
    output("b", 2, { output: capped, outputChars: FULL.length, truncated: true, fullOutputFile: file }),
  );
  j.append({ type: "cell", turn: 2, callId: "c", code: "1 / 0" });
  j.append(
    output("c", 3, {
      status: "error",
      output: "Traceback (most recent call last):\n  line 1\nZeroDivisionError: division by zero\n",
      outputChars: 70,
      error: { name: "ZeroDivisionError", value: "division by zero" },
    }),
  );
  j.append({ type: "cell", turn: 2, callId: "d", code: "plt.plot([1, 2]); plt.show()" });
  const image = j.writeOutputFile("cell-4-0.png", PNG);
  j.append(output("d", 4, { imageFiles: [image] }));
  j.append({ type: "submit", value: { rows: 400 } });
  j.append({ type: "final", text: "Done: 400 rows.", spent });
  j.close();
  return dir;
}

describe("exportSession", () => {
  it("jsonl is the journal itself", () => {
    const dir = session();
    expect(exportSession(dir, "jsonl")).toBe(readFileSync(join(dir, "journal.jsonl"), "utf8"));
  });

  it("md is a readable transcript with code and outputs", () => {
    const md = exportSession(session(), "md");
    expect(md).toContain("# Count the lines");
    expect(md).toContain("abcd2345");
    expect(md).toContain("test-model");
    expect(md).toContain("```python\nx = 1\nprint(x)\n```");
    expect(md).toContain("```text\n1\n```");
    expect(md).toContain("full output in outputs/cell-2.txt");
    expect(md).toContain("ZeroDivisionError: division by zero");
    expect(md).toContain("## Final answer\n\nDone: 400 rows.");
    expect(md).toContain('Result submitted: {"rows":400}');
    expect(md).toContain("$0.0042");
  });

  it("ipynb is an nbformat 4.5 notebook of the cells the agent ran", () => {
    const nb = JSON.parse(exportSession(session(), "ipynb"));
    expect(nb.nbformat).toBe(4);
    expect(nb.nbformat_minor).toBe(5);
    expect(nb.metadata.kernelspec.name).toBe("python3");
    expect(nb.metadata.language_info.name).toBe("python");
    const ids = nb.cells.map((c: { id: string }) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of nb.cells) {
      expect(c.id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(c.metadata).toEqual({});
      expect(Array.isArray(c.source)).toBe(true);
    }

    const code = nb.cells.filter((c: { cell_type: string }) => c.cell_type === "code");
    expect(code.map((c: { execution_count: number }) => c.execution_count)).toEqual([1, 2, 3, 4]);
    expect(code[0].source).toEqual(["x = 1\n", "print(x)"]);
    expect(code[0].outputs).toEqual([{ output_type: "stream", name: "stdout", text: ["1\n"] }]);

    const stream = code[1].outputs[0];
    expect(stream.output_type).toBe("stream");
    expect(stream.text.join("")).toBe(FULL);

    const error = code[2].outputs[0];
    expect(error).toMatchObject({
      output_type: "error",
      ename: "ZeroDivisionError",
      evalue: "division by zero",
    });
    expect(error.traceback.at(-1)).toBe("ZeroDivisionError: division by zero");

    const image = code[3].outputs[0];
    expect(image.output_type).toBe("display_data");
    expect(image.metadata).toEqual({});
    expect(image.data["image/png"]).toBe(PNG.toString("base64"));

    const markdown = nb.cells
      .filter((c: { cell_type: string }) => c.cell_type === "markdown")
      .map((c: { source: string[] }) => c.source.join(""));
    expect(markdown.some((m: string) => m.includes("Inspect the data"))).toBe(true);
    expect(markdown.some((m: string) => m.includes("Done: 400 rows."))).toBe(true);
  });

  it("html is self-contained and escaped", () => {
    const html = exportSession(session(), "html");
    expect(html).toContain("<!DOCTYPE html>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script");
    expect(html).toContain(`data:image/png;base64,${PNG.toString("base64")}`);
    expect(html).not.toMatch(/(src|href)="(?!data:)/);
  });
});
