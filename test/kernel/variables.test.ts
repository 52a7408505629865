import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { KernelRequestError } from "../../src/kernel/index.js";
import { tempDir, useKernels } from "./helpers.js";

const start = useKernels();

describe("variables", async () => {
  const kernel = await start();
  const dir = await tempDir();

  it("loads a 20 MB text file as str inside the kernel", async () => {
    const file = path.join(dir, "big.txt");
    await writeFile(file, "abc\n".repeat(5 * 1024 * 1024));
    const v = await kernel.setVariable("big", { file });
    expect(v.name).toBe("big");
    expect(v.type).toBe("str");
    expect(v.size).toBe("20,971,520 chars");
    expect(v.preview.length).toBeLessThanOrEqual(200);
    expect((await kernel.execute("len(big)")).output).toBe("20971520\n");
  });

  it("loads a file that is not UTF-8 as bytes", async () => {
    const file = path.join(dir, "blob.bin");
    await writeFile(file, Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    const v = await kernel.setVariable("blob", { file });
    expect(v.type).toBe("bytes");
    expect(v.size).toBe("4 bytes");
    expect((await kernel.execute("blob[:2]")).output).toBe("b'\\xff\\xfe'\n");
  });

  it("sets text directly", async () => {
    const v = await kernel.setVariable("greeting", { text: "héllo" });
    expect(v).toEqual({ name: "greeting", type: "str", size: "5 chars", preview: "'héllo'" });
    expect((await kernel.execute("greeting.upper()")).output).toBe("'HÉLLO'\n");
  });

  it("rejects an invalid name or a missing file", async () => {
    await expect(kernel.setVariable("not a name", { text: "x" })).rejects.toBeInstanceOf(KernelRequestError);
    await expect(kernel.setVariable("class", { text: "x" })).rejects.toThrow(/not a valid variable name/);
    await expect(kernel.setVariable("f", { file: path.join(dir, "missing.txt") })).rejects.toThrow(
      /No such file/,
    );
  });

  it("lists user variables only", async () => {
    await kernel.execute("import os, json\nitems = [1, 2, 3]\ndef helper(): pass\n_private = 1");
    const vars = await kernel.variables();
    const names = vars.map((v) => v.name);
    expect(names).toEqual(expect.arrayContaining(["big", "blob", "greeting", "items", "helper"]));
    for (const hidden of [
      "os",
      "json",
      "_private",
      "In",
      "Out",
      "exit",
      "quit",
      "get_ipython",
      "submit",
      "_out",
    ]) {
      expect(names).not.toContain(hidden);
    }
    expect(vars.find((v) => v.name === "items")).toEqual({
      name: "items",
      type: "list",
      size: "3 items",
      preview: "[1, 2, 3]",
    });
    for (const v of vars) expect(v.preview.length).toBeLessThanOrEqual(200);
  });

  it("does not hang on a __repr__ that never returns", async () => {
    await kernel.execute("class Stuck:\n    def __repr__(self):\n        while True: pass\nstuck = Stuck()");
    const vars = await kernel.variables();
    expect(vars.find((v) => v.name === "stuck")).toMatchObject({
      type: "Stuck",
      preview: "<repr took too long>",
    });
    expect((await kernel.execute("1 + 1")).output).toBe("2\n");
  });
});
