import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { tempDir, useKernels } from "./helpers.js";

const start = useKernels();

describe("output cap", () => {
  it("shows head + tail of a 5 MB print, keeps the full text in _out[n] and in outputDir", async () => {
    const outputDir = await tempDir();
    const kernel = await start({ outputDir });
    const r = await kernel.execute("print('HEAD' + 'x' * 5_000_000 + 'TAIL')");
    expect(r.status).toBe("ok");
    expect(r.truncated).toBe(true);
    expect(r.outputChars).toBe(5_000_009);
    expect(r.output.length).toBeGreaterThan(20_000);
    expect(r.output.length).toBeLessThan(20_000 + 300);
    expect(r.output.startsWith("HEAD")).toBe(true);
    expect(r.output.endsWith("TAIL\n")).toBe(true);
    expect(r.output).toContain(`4,980,009 characters omitted`);
    expect(r.output).toContain(`_out[${r.executionCount}]`);
    expect(r.fullOutputPath).toBe(`${outputDir}/cell-${r.executionCount}.txt`);
    expect(readFileSync(r.fullOutputPath!, "utf8").length).toBe(5_000_009);
    const full = await kernel.execute(`len(_out[${r.executionCount}])`);
    expect(full.output).toBe("5000009\n");
  });

  it("honours a smaller cap; past it, streams only the newest text with a marker of what it skipped", async () => {
    const chunks: string[] = [];
    const kernel = await start({ outputCap: 1000, onOutput: (t) => chunks.push(t) });
    const r = await kernel.execute("for i in range(10_000): print(i)");
    expect(r.truncated).toBe(true);
    expect(r.fullOutputPath).toBeUndefined();
    expect(r.output.length).toBeLessThan(1000 + 300);
    expect(r.output.startsWith("0\n1\n2\n")).toBe(true);
    expect(r.output.endsWith("9998\n9999\n")).toBe(true);
    // The live stream: the cap's head whole, then the newest lines (what a view shows while the cell
    // runs), with the kernel's marker where it skipped; less than the whole output.
    const streamed = chunks.join("");
    expect(streamed.startsWith("0\n1\n2\n")).toBe(true);
    expect(streamed.endsWith("9998\n9999\n")).toBe(true);
    expect(streamed).toMatch(
      /\[relm: [\d,]+ characters skipped in the live view; all of the output: _out\[\d+\]/,
    );
    expect(streamed.length).toBeLessThan(r.outputChars);
  });

  it("decodes UTF-8 split across writes", async () => {
    const kernel = await start();
    const r = await kernel.execute(
      "import sys\nb = 'é€😀'.encode()\nfor i in range(len(b)): sys.stdout.buffer.write(b[i:i+1]); sys.stdout.flush()",
    );
    expect(r.output).toBe("é€😀");
  });
});
