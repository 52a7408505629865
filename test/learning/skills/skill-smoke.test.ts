import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "../../../src/kernel/sandbox/index.js";
import type { PythonInfo } from "../../../src/kernel/types.js";
import type { SmokeTest } from "../../../src/learning/skills/mine-package.js";
import { makeScratch } from "../../../src/learning/skills/skill-scratch.js";
import { runSmokeTest } from "../../../src/learning/skills/skill-smoke.js";
import { testPython } from "../../kernel/helpers.js";
import { tempDir } from "../../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function dir(prefix: string): string {
  const d = tempDir(prefix);
  cleanups.push(d.cleanup);
  return d.path;
}

/** A project with a file, a sub folder, history, dependencies, relm's home and links in and out. */
function project(): { root: string; home: string; outside: string } {
  const root = dir("relm-scratch-project-");
  const outside = dir("relm-scratch-outside-");
  writeFileSync(join(outside, "secret.txt"), "not yours\n");
  mkdirSync(join(root, "data"));
  writeFileSync(join(root, "data", "in.txt"), "a b c\n");
  writeFileSync(join(root, "notes.md"), "notes\n");
  for (const skipped of [".git", "node_modules", ".venv"]) {
    mkdirSync(join(root, skipped));
    writeFileSync(join(root, skipped, "big"), "x");
  }
  const home = join(root, "relm-home");
  mkdirSync(home);
  writeFileSync(join(home, "config.json"), "{}");
  symlinkSync(join(root, "notes.md"), join(root, "link-in.md"));
  symlinkSync(join(outside, "secret.txt"), join(root, "link-out.txt"));
  symlinkSync(outside, join(root, "outside-dir"));
  return { root, home, outside };
}

describe("the scratch copy", () => {
  it("copies the project but history, dependencies, RELM_HOME and links out of it; written paths land in the copy", () => {
    const { root, home, outside } = project();
    const scratch = makeScratch(root, join(root, "data"), ["in.txt"], [home]);
    try {
      expect(readFileSync(join(scratch.root, "data", "in.txt"), "utf8")).toBe("a b c\n");
      expect(readFileSync(join(scratch.root, "link-in.md"), "utf8")).toBe("notes\n"); // a copy, not a link
      for (const gone of [".git", "node_modules", ".venv", "relm-home", "link-out.txt", "outside-dir"])
        expect(existsSync(join(scratch.root, gone)), gone).toBe(false);
      expect(scratch.cwd).toBe(join(scratch.root, "data"));
      expect(scratch.copied).toMatch(
        /^a scratch copy of the project \(3 files, 0\.0 MB; .*2 symbolic link\(s\) out of it left out\)$/,
      );
      // Relative, absolute in the project, absolute elsewhere: all inside the scratch folder.
      expect(scratch.writePath("out.txt")).toBe(join(scratch.root, "data", "out.txt"));
      expect(scratch.writePath(join(root, "notes.md"))).toBe(join(scratch.root, "notes.md"));
      expect(scratch.writePath("../../x.txt").startsWith(join(scratch.dir, "outside"))).toBe(true);
      expect(scratch.writePath(join(outside, "secret.txt"))).toBe(
        join(scratch.dir, "outside", outside, "secret.txt"),
      );
      expect(scratch.readPath(join(root, "data", "in.txt"))).toBe(join(scratch.root, "data", "in.txt"));
      expect(scratch.readPath("in.txt")).toBe("in.txt");
    } finally {
      scratch.close();
    }
    expect(existsSync(scratch.dir)).toBe(false);
  });

  it("holds only the chain's inputs when the project is over the limits", () => {
    const { root } = project();
    const scratch = makeScratch(root, root, ["data/in.txt", "missing.txt"], [], { files: 2, bytes: 1e9 });
    try {
      expect(readFileSync(join(scratch.root, "data", "in.txt"), "utf8")).toBe("a b c\n");
      expect(existsSync(join(scratch.root, "notes.md"))).toBe(false);
      expect(scratch.copied).toBe(
        "a scratch folder holding only the chain's 1 input file(s) (the project is over 2 files or 953.67431640625 MB)",
      );
    } finally {
      scratch.close();
    }
  });
});

describe("the smoke test", () => {
  let python: PythonInfo;
  beforeAll(async () => {
    python = await testPython();
  });

  function test(
    root: string,
    name: string,
    args: SmokeTest["args"],
    expected: string,
    needsValue = true,
  ): SmokeTest {
    return {
      occurrence: {
        session: "s1",
        cwd: root,
        start: 0,
        events: [3, 5],
        literals: [],
        outputs: [expected],
        complete: true,
      },
      call: `${name}(...)`,
      args,
      show: "print(_r)",
      expected,
      inputs: [],
      writes: args.filter((a) => a.role === "write").map((a) => a.string as string),
      needsValue,
    };
  }

  const WRITER = (realFile: string) =>
    [
      "def stamp(out_path):",
      '    """Writes a stamp to out_path and returns its length."""',
      '    open(out_path, "w").write("stamp")',
      // A path the chain hard-coded, not a parameter: only the confinement keeps it from the user's file.
      ...(realFile ? [`    open(${JSON.stringify(realFile)}, "w").write("overwritten")`] : []),
      "    return 5",
      "",
    ].join("\n");

  it("runs in the copy: the file the call is given is written there, not in the project", {
    timeout: 120_000,
  }, async () => {
    const { root, home } = project();
    writeFileSync(join(root, "out.txt"), "the user's\n");
    const run = await runSmokeTest({
      python,
      env: process.env,
      name: "stamp",
      code: WRITER(""),
      test: test(
        root,
        "stamp",
        [{ name: "out_path", literal: '"out.txt"', role: "write", string: "out.txt" }],
        "5\n",
      ),
      project: root,
      relmHome: home,
    });
    expect(run.failure).toBeUndefined();
    expect(run).toMatchObject({ passed: true, docstring: true, returnedNone: false, wrote: ["out.txt"] });
    expect(run.cwd.startsWith(root)).toBe(false);
    expect(readFileSync(join(root, "out.txt"), "utf8")).toBe("the user's\n");
    expect(run.confinement).toMatch(
      probeSandbox(process.env).ok ? /^confined by bubblewrap: / : /^not confined: /,
    );
  });

  it.skipIf(!probeSandbox(process.env).ok)(
    "confined: a path the code hard-codes into the real project is not the user's file",
    { timeout: 120_000 },
    async () => {
      const { root, home } = project();
      const real = join(root, "notes.md");
      const run = await runSmokeTest({
        python,
        env: process.env,
        name: "stamp",
        code: WRITER(real),
        test: test(
          root,
          "stamp",
          [{ name: "out_path", literal: '"o.txt"', role: "write", string: "o.txt" }],
          "5\n",
        ),
        project: root,
        relmHome: home,
      });
      // Inside, the real project's folder is not there (or is an empty private one): the write fails or
      // lands in the sandbox's own /tmp, which is gone with it. Either way the user's file is untouched.
      expect(run.confinement).toMatch(/^confined by bubblewrap: /);
      expect(readFileSync(real, "utf8")).toBe("notes\n");
    },
  );

  it("fails a function without a docstring, or one returning None where the chain showed a value", {
    timeout: 120_000,
  }, async () => {
    const { root } = project();
    const plain = await runSmokeTest({
      python,
      env: process.env,
      name: "f",
      code: "def f():\n    return 1\n",
      test: test(root, "f", [], "1\n"),
      project: root,
      confine: false,
    });
    expect(plain).toMatchObject({
      passed: false,
      failure: "the function has no docstring",
      confinement: "not confined (asked not to be)",
    });
    const none = await runSmokeTest({
      python,
      env: process.env,
      name: "g",
      code: 'def g():\n    """Prints None."""\n    return None\n',
      test: test(root, "g", [], "None\n"),
      project: root,
      confine: false,
    });
    expect(none).toMatchObject({
      passed: false,
      failure: "the function returned None, but the chain's last cell showed a value",
    });
  });
});
