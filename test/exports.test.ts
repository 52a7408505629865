// scripts/check-exports.mjs (run by npm run check over the whole repository) on a small repository of
// its own: each kind of export nothing needs is found, and each way of using one counts.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { unusedExports } from "../scripts/check-exports.mjs";
import { tempDir } from "./support/cli.js";

function repository(files: Record<string, string>): string {
  const dir = tempDir();
  onTestFinished(dir.cleanup);
  const tsconfig = {
    compilerOptions: { module: "NodeNext", strict: true, noEmit: true },
    include: ["src", "test"],
  };
  writeFileSync(join(dir.path, "tsconfig.json"), JSON.stringify(tsconfig));
  writeFileSync(join(dir.path, "package.json"), JSON.stringify({ type: "module" }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir.path, file)), { recursive: true });
    writeFileSync(join(dir.path, file), text);
  }
  return dir.path;
}

describe("unused exports", () => {
  it("finds each kind, and counts uses through re-exports, types, namespaces, import() and the build", () => {
    const root = repository({
      "src/a.ts": [
        "export const viaIndex = 1;",
        "export type AsType = { n: number };",
        "export const viaNamespace = 2;",
        "export const viaImport = 3;",
        "export const byBench = 4;",
        "export const unused = 5;",
        "export const local = 6;",
        "export const alsoLocal = local + 1;",
        "export const testsOnly = 7;",
        "export const testedUnit = 8;",
        "/** @testing a seam */",
        "export const seam = 9;",
        "export const reExported = 10;",
        "console.log(alsoLocal, testedUnit);",
      ].join("\n"),
      "src/index.ts": 'export { viaIndex, reExported } from "./a.js";\n',
      "src/b.ts": [
        'import { viaIndex } from "./index.js";',
        'import type { AsType } from "./a.js";',
        'import * as a from "./a.js";',
        "const t: AsType = { n: viaIndex + a.viaNamespace };",
        'const { viaImport } = await import("./a.js");',
        "console.log(t, viaImport);",
      ].join("\n"),
      "test/a.test.ts":
        'import { testsOnly, testedUnit, seam } from "../src/a.js";\nconsole.log(testsOnly, testedUnit, seam);\n',
      "bench/x.mjs": 'import { byBench } from "../dist/a.js";\nconsole.log(byBench);\n',
    });
    const found = (unusedExports(root) as { kind: string; name: string; at: string }[]).map(
      (f) => `${f.at} ${f.kind}: ${f.name}`,
    );
    expect(found.sort()).toEqual([
      "src/a.ts:13 unused: reExported", // once its re-export goes, nothing uses it at all
      "src/a.ts:6 unused: unused",
      "src/a.ts:7 local: local",
      "src/a.ts:8 local: alsoLocal",
      "src/a.ts:9 tests only: testsOnly",
      "src/index.ts:1 re-export: reExported",
    ]);
  });
});
