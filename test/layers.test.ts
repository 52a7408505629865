// Imports between the folders of src/ go downward only, apart from the exceptions docs/architecture.md
// documents (scripts/check-layers.mjs holds the order and the exceptions).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { cycles } from "../scripts/check-cycles.mjs";
// @ts-expect-error: a plain .mjs script without type declarations
import { violations } from "../scripts/check-layers.mjs";
import { tempDir } from "./support/cli.js";

/** A src/ tree in `root` of files that each import the files listed for them. */
function srcTree(root: string, files: Record<string, string[]>): string {
  const src = join(root, "src");
  for (const [file, imports] of Object.entries(files)) {
    const path = join(src, file);
    mkdirSync(dirname(path), { recursive: true });
    const lines = imports.map((to) => `import "${relativeImport(file, to)}";`);
    writeFileSync(path, `${lines.join("\n")}\n`);
  }
  return src;
}

function relativeImport(from: string, to: string): string {
  const up = from.split("/").length - 1;
  return `${"../".repeat(up)}${to.replace(/\.ts$/, ".js")}`;
}

describe("layers", () => {
  it("no folder of src/ imports one above it", () => {
    const src = fileURLToPath(new URL("../src/", import.meta.url));
    expect(violations(src)).toEqual([]);
  });

  it("learning/ is reached only from the composition root, and its commands sit above the CLI", () => {
    const dir = tempDir();
    onTestFinished(dir.cleanup);
    const src = srcTree(dir.path, {
      "learning/store/index.ts": [],
      "learning/refine/refine.ts": ["learning/store/index.ts", "agent/hooks.ts", "host/rpc.ts"],
      "learning/commands/harness-command.ts": ["cli/exit-codes.ts", "learning/refine/refine.ts"],
      "agent/hooks.ts": [],
      "agent/core/tree.ts": ["learning/store/index.ts"],
      "host/rpc.ts": [],
      "host/commands.ts": ["learning/refine/refine.ts"],
      "cli/exit-codes.ts": [],
      "cli/setup.ts": ["learning/refine/refine.ts"],
      "cli/program.ts": ["learning/commands/harness-command.ts"],
      "cli/run.ts": ["learning/store/index.ts"],
    });
    expect(violations(src).sort()).toEqual([
      "agent/core/tree.ts imports ../../learning/store/index.js (agent -> learning)",
      "cli/run.ts imports ../learning/store/index.js (only cli/demo.ts, cli/doctor/doctor.ts, cli/program.ts, cli/setup.ts, cli/slash-commands.ts, webui/learning-view.ts attach learning/)",
      "host/commands.ts imports ../learning/refine/refine.js (host -> learning)",
    ]);
  });

  it("agent/budget/ sits below the rest of agent/: it may be imported by it, never import it", () => {
    const dir = tempDir();
    onTestFinished(dir.cleanup);
    const src = srcTree(dir.path, {
      "session/journal.ts": [],
      "agent/budget/budget.ts": ["session/journal.ts"],
      "agent/budget/deadline.ts": ["agent/budget/budget.ts", "agent/core/events.ts"],
      "agent/core/events.ts": [],
      "agent/core/loop.ts": ["agent/budget/budget.ts", "agent/core/events.ts"],
      "agent/hooks.ts": ["agent/budget/budget.ts"],
    });
    expect(violations(src)).toEqual([
      "agent/budget/deadline.ts imports ../../agent/core/events.js (agent/budget -> agent)",
    ]);
  });
});

describe("import circles", () => {
  it("no modules of src/ import each other in a circle", () => {
    expect(cycles(fileURLToPath(new URL("../src/", import.meta.url)))).toEqual([]);
  });

  it("finds a circle through type-only, dynamic and re-exporting imports, and not one in a comment", () => {
    const dir = tempDir();
    onTestFinished(dir.cleanup);
    const src = join(dir.path, "src");
    const files: Record<string, string> = {
      "host/a.ts": 'import type { B } from "./b.js";\nexport type A = B;\n',
      "host/b.ts": 'export { c } from "../cli/c.js";\nexport type B = string;\n',
      "cli/c.ts": 'export const c = () => import("../host/a.js");\n',
      "cli/d.ts": '// see import("./e.js")\nimport { e } from "./e.js";\n',
      "cli/e.ts": '/* from "./d.js" */ export const e = 1;\n',
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(src, file)), { recursive: true });
      writeFileSync(join(src, file), text);
    }
    expect(cycles(src)).toEqual([
      "cli/c.ts -> host/a.ts -> host/b.ts -> cli/c.ts (3 modules: cli/c.ts, host/a.ts, host/b.ts)",
    ]);
  });
});
