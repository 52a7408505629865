import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

const BUGGY = "def add(a, b):\n    return a - b\n";
// Tests in checks/, where run_tests() does not look: it falls back to the session's gate.
const TESTS =
  "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n" +
  "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n" +
  "    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n";
const GATE = "python3 -m unittest discover -s checks -t .";

function project(cwd: string): void {
  writeFileSync(join(cwd, "calc.py"), BUGGY);
  mkdirSync(join(cwd, "checks"));
  writeFileSync(join(cwd, "checks", "__init__.py"), "");
  writeFileSync(join(cwd, "checks", "test_calc.py"), TESTS);
  const git = (...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });
  git("init", "-q");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "t");
  git("add", ".");
  git("commit", "-qm", "init");
}

describe("the toolkit in the kernel", () => {
  it("a task edits a file with edit() and runs run_tests() until the tests pass; the diff is journaled and relm undo puts the file back", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: fix add": [
          {
            code:
              "before = run_tests()\nprint('BEFORE', before.passed, before.failed, before.failures)\n" +
              "print(edit('calc.py', 'return a - b', 'return a + b'))\n" +
              "after = run_tests()\nprint('AFTER', after.ok, after.passed, after.failed, after.command)",
          },
          echoLastCell,
        ],
      }),
    });
    project(rig.cwd);
    const result = await runRelm(["run", "--gate", GATE, "TASK: fix add"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(rig.cwd, "calc.py"), "utf8")).toBe("def add(a, b):\n    return a + b\n");
    // The first run found the failing test through the gate, the second saw both pass.
    expect(result.stdout).toContain("BEFORE 1 1 ['checks.test_calc.T.test_add']");
    expect(result.stdout).toContain(`AFTER True 2 0 ${GATE}`);
    expect(result.stdout).toContain("edited calc.py: 1 replacement at line 2 (+1 -1)");
    // Line mode's progress names the change; the export lists it too.
    expect(result.stderr).toContain("✎ edit calc.py (+1 -1)");

    const journal = onlyJournal(rig.home);
    const edits = journal.lines.filter((l) => l.type === "file_edit");
    expect(edits).toHaveLength(1);
    expect(edits[0]).toMatchObject({ path: "calc.py", action: "edit", added: 1, removed: 1 });
    expect(edits[0]?.diff).toContain("--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@");
    expect(edits[0]?.diff).toContain("-    return a - b\n+    return a + b\n");
    // Journaled after the cell that made it started, before its output.
    const order = (t: string) => journal.lines.findIndex((l) => l.type === t);
    expect(order("cell")).toBeLessThan(order("file_edit"));
    expect(order("file_edit")).toBeLessThan(order("cell_output"));
    expect(journal.lines.filter((l) => l.type === "gate_run").map((l) => l.passed)).toEqual([true]);
    // The model was told about the toolkit in its system prompt.
    expect(rig.model.requests[0]?.rawBody).toContain(
      "# Toolkit (already imported; help(name) is the manual)",
    );

    const id = journal.lines[0]?.id as string;
    const exported = await runRelm(["export", id, "--format", "md"], { env: rig.env });
    expect(exported.stdout).toContain("File edit: calc.py (+1 -1)");
    const undo = await runRelm(["undo", id], { env: rig.env });
    expect(undo.code, undo.stderr).toBe(0);
    expect(readFileSync(join(rig.cwd, "calc.py"), "utf8")).toBe(BUGGY);
  }, 180_000); // four relm processes, a kernel and four test runs: slow on a loaded machine

  it("a child agent, in a kernel forked from the template, has the toolkit; its edits go to its own journal", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: parent": [{ code: "print('CHILD SAID', rlm('TASK: child edits'))" }, echoLastCell],
        "TASK: child edits": [
          {
            code:
              "hits = grep('return a', glob='*.py')\n" +
              "write('notes/found.txt', repr(hits) + '\\n')\n" +
              "apply_patch('*** Begin Patch\\n*** Update File: calc.py\\n@@\\n-    return a - b\\n+    return b + a\\n*** End Patch')\n" +
              "submit([tuple(h) for h in hits])",
          },
        ],
      }),
    });
    project(rig.cwd);
    const result = await runRelm(["run", "TASK: parent"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("CHILD SAID [('calc.py', 2, '    return a - b')]");
    expect(readFileSync(join(rig.cwd, "calc.py"), "utf8")).toBe("def add(a, b):\n    return b + a\n");
    expect(readFileSync(join(rig.cwd, "notes", "found.txt"), "utf8")).toBe("calc.py:2:     return a - b\n");

    const journal = onlyJournal(rig.home);
    expect(journal.lines.filter((l) => l.type === "file_edit")).toHaveLength(0);
    const children = readdirSync(join(journal.dir, "children"));
    expect(children).toHaveLength(1);
    const child = readFileSync(join(journal.dir, "children", children[0] as string, "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as JournalLine);
    const edits = child.filter((l) => l.type === "file_edit");
    expect(edits.map((e) => [e.action, e.path])).toEqual([
      ["create", "notes/found.txt"],
      ["patch", "calc.py"],
    ]);
    expect(edits[1]?.diff).toContain("+    return b + a");
  }, 120_000);
});
