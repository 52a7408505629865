// --var NAME=@FILE: files are described the way the kernel loads them (UTF-8 → str, else bytes) without
// the host holding the file, and a file over the cap is refused from its size alone.

import { closeSync, openSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeVariable, MAX_VAR_FILE_BYTES, parseVariableFlag } from "../../src/agent/core/variables.js";
import { UsageError } from "../../src/config/errors.js";
import { tempDir } from "../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function fileWith(content: Buffer | string): string {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const path = join(dir.path, "data");
  writeFileSync(path, content);
  return path;
}

function described(content: Buffer | string) {
  const file = fileWith(content);
  return describeVariable({ name: "data", source: { file } });
}

describe("--var files", () => {
  it("counts characters and lines of UTF-8 text, whatever falls on a chunk boundary", () => {
    expect(described("héllo\nwörld\n")).toMatchObject({
      type: "str",
      size: "12 chars, 2 lines",
      preview: JSON.stringify("héllo\nwörld\n"),
    });
    expect(described("one line, no newline")).toMatchObject({ size: "20 chars, 1 line" });
    expect(described("")).toMatchObject({ type: "str", size: "0 chars, 0 lines", preview: '""' });
    // A three-byte and a four-byte character cut by the 1 MiB read boundary are still whole characters.
    const MiB = 1024 * 1024;
    for (const char of ["€", "😀"]) {
      const text = `${"a".repeat(MiB - 1)}${char}\n${"b".repeat(10)}`;
      expect(described(text)).toMatchObject({
        type: "str",
        size: `${(MiB - 1 + 1 + 1 + 10).toLocaleString("en-US")} chars, 2 lines`,
        preview: `${JSON.stringify("a".repeat(160))}…`,
      });
    }
    // A byte-order mark is a character to Python, so it is one here.
    expect(described("\ufeffabc")).toMatchObject({ size: "4 chars, 1 line" });
  });

  it("describes anything that is not UTF-8 as bytes, as the kernel loads it", () => {
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x41, ...Buffer.alloc(40)]);
    expect(described(binary)).toMatchObject({ type: "bytes", size: "44 bytes", preview: /^hex fffe0041/ });
    // A file that ends inside a character, and a lone surrogate, are not UTF-8 either.
    expect(described(Buffer.from([0x61, 0xe2, 0x82]))).toMatchObject({ type: "bytes" });
    expect(described(Buffer.from([0x61, 0xed, 0xa0, 0x80]))).toMatchObject({ type: "bytes" });
  });

  it("refuses a file over the cap from its size alone, naming the size, the cap and what to do", () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const big = join(dir.path, "big.bin");
    closeSync(openSync(big, "w"));
    truncateSync(big, 2 * 1024 ** 3); // sparse: 2 GiB that take no disk and are never read
    expect(MAX_VAR_FILE_BYTES).toBe(1024 ** 3);
    const call = () => parseVariableFlag("data=@big.bin", dir.path);
    expect(call).toThrow(UsageError);
    expect(call).toThrow(
      `--var data=@big.bin: the file is 2.0 GiB; --var loads at most 1.0 GiB into the kernel as one value. ` +
        `For a larger file give its path instead (--var data_path=${big}) and let the model read it in parts`,
    );
    truncateSync(big, MAX_VAR_FILE_BYTES);
    expect(parseVariableFlag("data=@big.bin", dir.path)).toEqual({ name: "data", source: { file: big } });
  });
});
