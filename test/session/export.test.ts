import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportSession, Journal, type JournalEventOf, writeExport } from "../../src/session/index.js";
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
  it("jsonl is the journal itself", async () => {
    const dir = session();
    expect(await exportSession(dir, "jsonl")).toBe(readFileSync(join(dir, "journal.jsonl"), "utf8"));
  });

  it("md is a readable transcript with code and outputs", async () => {
    const md = await exportSession(session(), "md");
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

  it("md written to a file links its images from where the file is: copied into NAME_files beside it", async () => {
    const dir = session();
    const out = join(tempDir(), "reports", "week 1");
    mkdirSync(out, { recursive: true });
    const written = await writeExport(dir, "md", join(out, "count.md"));
    expect(written).toEqual([join(out, "count.md"), join(out, "count_files", "cell-4-0.png")]);
    const md = readFileSync(join(out, "count.md"), "utf8");
    const links = [...md.matchAll(/!\[image\]\(<?([^)>]+)>?\)/g)].map((m) => m[1] as string);
    expect(links).toEqual(["count_files/cell-4-0.png"]);
    // The link works from the document's folder, not from the session's.
    expect(readFileSync(join(out, links[0] as string))).toEqual(PNG);
    expect(existsSync(join(dir, links[0] as string))).toBe(false);
  });

  it("md on stdout links its images by their absolute paths in the session folder", async () => {
    const dir = session();
    const md = await exportSession(dir, "md");
    const link = /!\[image\]\(<?([^)>]+)>?\)/.exec(md)?.[1] as string;
    expect(isAbsolute(link)).toBe(true);
    expect(dirname(dirname(link))).toBe(dir);
    expect(readFileSync(link)).toEqual(PNG);
  });

  it("ipynb is an nbformat 4.5 notebook of the cells the agent ran", async () => {
    const nb = JSON.parse(await exportSession(session(), "ipynb"));
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

  it("html is self-contained and escaped", async () => {
    const html = await exportSession(session(), "html");
    expect(html).toContain("<!DOCTYPE html>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script");
    expect(html).toContain(`data:image/png;base64,${PNG.toString("base64")}`);
    expect(html).not.toMatch(/(src|href)="(?!data:)/);
  });

  it("embeds no file a kernel linked in place of its outputs (an image, a cell's full output)", async () => {
    const dir = session();
    // What a sandboxed cell can do: outputs/ is writable to the session's kernels.
    const secret = join(tempDir(), "auth.json");
    writeFileSync(secret, '{"access": "tok-SECRET-0123456789"}');
    for (const name of ["cell-4-0.png", "cell-2.txt"]) {
      rmSync(join(dir, "outputs", name));
      symlinkSync(secret, join(dir, "outputs", name));
    }
    const inlined = Buffer.from(readFileSync(secret)).toString("base64");
    for (const format of ["html", "ipynb", "md"] as const) {
      const text = await exportSession(dir, format);
      expect(text, format).not.toContain("tok-SECRET");
      expect(text, format).not.toContain(inlined);
    }
    const out = tempDir();
    const written = await writeExport(dir, "md", join(out, "s.md"));
    for (const file of written) expect(readFileSync(file, "utf8"), file).not.toContain("tok-SECRET");
  });

  it("html renders the model's markdown: headings, tables, fenced code with its language", async () => {
    const html = await exportSession(markdownSession(), "html");
    expect(html).toContain("<h2>Result</h2>");
    expect(html).toMatch(/<table>\s*<thead>\s*<tr>\s*<th>file<\/th>\s*<th>rows<\/th>/);
    expect(html).toMatch(/<td>data\.csv<\/td>\s*<td>400<\/td>/);
    expect(html).toContain('<pre><code class="language-python">print(&quot;a &lt; b&quot;)');
    expect(html).toContain("<li>first <strong>bold</strong></li>");
    expect(html).toContain("<em>shape</em>");
    // Only ~~text~~ strikes through, as in the UI: GFM's single ~ would strike "5%-" out.
    expect(html).toContain("It grew ~5%-~8%; <del>was slow</del> is not.");
    expect(html).toContain(
      '<a href="https://example.com/docs?a=1&amp;b=2" rel="noopener noreferrer">docs</a>',
    );
    // The model's earlier reply is markdown too; a single newline stays a line break, as in the UI.
    expect(html).toContain("<h3>Plan</h3>");
    expect(html).toMatch(/and click me, again,<br>\s*<a href="&amp;#106;avascript/);
    // The person's own words stay as typed, and cells stay preformatted and escaped.
    expect(html).toContain('<div class="text">Count rows; **not** a heading</div>');
    expect(html).toContain('<pre class="code"><code>print(&quot;## not markdown&quot;)</code></pre>');
    expect(html).toContain('<pre class="output">## not markdown\n| a | b |\n</pre>');
  });

  it("html escapes raw HTML and drops script links in the model's text", async () => {
    const html = await exportSession(markdownSession(), "html");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=alert(2)&gt;");
    expect(html).not.toMatch(/<script|<img src=x|<iframe/i);
    expect(html).not.toMatch(/href="\s*(javascript|vbscript|data):/i);
    // An entity stays literal text in the attribute (a relative URL), never decoded into a scheme.
    expect(html).not.toMatch(/href="[^"]*&#/);
    // The link text survives without its target; a remote image is a link, never fetched on open.
    expect(html).toContain("click me");
    expect(html).not.toContain('src="https://');
    expect(html).toContain(
      '<a href="https://example.com/pixel.png" rel="noopener noreferrer">[image: pixel]</a>',
    );
  });

  it("md keeps the model's markdown as written", async () => {
    const md = await exportSession(markdownSession(), "md");
    expect(md).toContain(`## Final answer\n\n${FINAL}`);
    expect(md).toContain("### Plan\n\n1. first **bold**");
  });
});

const FINAL = `## Result

| file | rows |
|------|------|
| data.csv | 400 |

\`\`\`python
print("a < b")
\`\`\`

The *shape* is fine; see [docs](https://example.com/docs?a=1&b=2).

It grew ~5%-~8%; ~~was slow~~ is not.

<script>alert(1)</script>

Inline <img src=x onerror=alert(2)> and [click me](javascript:alert(3)), [again](JaVaScRiPt:alert(4)),
[encoded](&#106;avascript:alert(5)), [data](data:text/html;base64,PHNjcmlwdD4=) and ![pixel](https://example.com/pixel.png).`;

/** A session whose model writes markdown (and some hostile HTML) around one cell. */
function markdownSession(): string {
  const dir = join(tempDir(), "mdmd2345");
  const j = Journal.create(dir, header());
  j.append({ type: "user", text: "Count rows; **not** a heading" });
  j.append({
    type: "model_response",
    turn: 1,
    text: "### Plan\n\n1. first **bold**\n2. then the rest",
    toolCalls: [],
    usage,
    cost: 0.002,
    stopReason: "tool_calls",
    requestBytes: 500,
    attempts: 1,
    durationMs: 10,
  });
  j.append({ type: "cell", turn: 1, callId: "a", code: 'print("## not markdown")' });
  j.append(output("a", 1, { output: "## not markdown\n| a | b |\n", outputChars: 26 }));
  j.append({ type: "final", text: FINAL, spent });
  j.close();
  return dir;
}

/** Two turns that only run code; the kernel's start journaled ahead of the first cell or after it. */
function codeOnlySession(id: string, kernelFirst: boolean): string {
  const dir = join(tempDir(), id);
  const j = Journal.create(dir, header(id));
  const started = { type: "kernel", event: "started", pid: 4242, detail: "python 3.12" } as const;
  const call = (turn: number, callId: string) => ({
    type: "model_response" as const,
    turn,
    text: "",
    toolCalls: [{ id: callId, name: "ipython", arguments: "{}" }],
    usage,
    cost: 0.001,
    stopReason: "tool_calls",
    requestBytes: 500,
    attempts: 1,
    durationMs: 10,
  });
  j.append({ type: "user", text: "Count the lines" });
  if (kernelFirst) j.append(started);
  j.append(call(1, "a"));
  j.append({ type: "cell", turn: 1, callId: "a", code: "n = 3" });
  if (!kernelFirst) j.append(started);
  j.append(output("a", 1, {}));
  j.append(call(2, "b"));
  j.append({ type: "cell", turn: 2, callId: "b", code: "print(n)" });
  j.append(output("b", 2, { output: "3\n", outputChars: 2 }));
  j.append({ type: "final", text: "3 lines.", spent });
  j.close();
  return dir;
}

describe("turns that only ran code", () => {
  it("sit under their own heading, and the kernel's start is before its first cell however it was journaled", async () => {
    const early = await exportSession(codeOnlySession("early234", true), "md");
    const late = await exportSession(codeOnlySession("late2345", false), "md");
    const body = (md: string) => md.slice(md.indexOf("## User"));
    expect(body(early)).toBe(body(late));
    const sections = body(early).split(/^## /m);
    expect(sections[1]).toBe("User\n\nCount the lines\n\n");
    expect(sections[2]).toBe(
      "Assistant (turn 1)\n\n> Kernel started (pid 4242): python 3.12\n\n```python\nn = 3\n```\n\n",
    );
    expect(sections[3]).toMatch(/^Assistant \(turn 2\)\n\n```python\nprint\(n\)\n```/);
    const html = await exportSession(codeOnlySession("html2345", false), "html");
    const order = ["User", "Assistant (turn 1)", "Kernel started", "n = 3", "Assistant (turn 2)", "print(n)"];
    const at = order.map((text) => html.indexOf(text));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });
});
