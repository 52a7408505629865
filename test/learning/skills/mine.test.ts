import { beforeAll, describe, expect, it } from "vitest";
import { chainKey, mineChains, type RecordedSession } from "../../../src/learning/skills/mine-chains.js";
import { normaliseOutput, packageChains, withDocstring } from "../../../src/learning/skills/mine-package.js";
import { analyseCells, type CellAnalysis } from "../../../src/learning/skills/mine-python.js";
import { testPython } from "../../kernel/helpers.js";

// The code is read by python/relm/skillmine (its own unit tests are python/tests/test_skillmine.py); these
// tests drive it the way `relm harness skills` does: the interpreter relm finds, one process per request.
let python: string;
beforeAll(async () => {
  python = (await testPython()).path;
});

/** A session whose cells all ran fine; outputs default to "". */
function session(
  id: string,
  cells: (string | { code: string; output?: string; ok?: boolean })[],
): RecordedSession {
  return {
    id,
    cwd: "/proj",
    cells: cells.map((c, i) => {
      const cell = typeof c === "string" ? { code: c } : c;
      return { event: 5 + 2 * i, code: cell.code, output: cell.output ?? "", ok: cell.ok ?? true };
    }),
  };
}

async function analysed(sessions: RecordedSession[]): Promise<Map<string, CellAnalysis>> {
  return analyseCells(
    python,
    sessions.flatMap((s) => s.cells.map((c) => c.code)),
  );
}

async function mine(sessions: RecordedSession[]) {
  return mineChains(sessions, await analysed(sessions));
}

async function key(...cells: string[]): Promise<string> {
  return chainKey(cells, await analyseCells(python, cells));
}

const READ = (file: string) => [
  `path = "${file}"\ntext = open(path).read()`,
  "words = text.split()\nprint(len(words))",
  "sorted(set(words))[:3]",
];

/** Package the first mined chain. */
async function packaged(sessions: RecordedSession[], exists: (p: string) => boolean = () => true) {
  const { chains } = await mine(sessions);
  if (!chains[0]) throw new Error("no chain");
  const { candidates, failed } = await packageChains(python, [chains[0]], new Set(), exists);
  if (!candidates[0]) throw new Error(`not packaged: ${failed[0]?.problem}`);
  return candidates[0];
}

describe("reading cells in Python", () => {
  it("normalises chains: comments, spacing, literal values and consistently renamed variables do not matter", async () => {
    expect(await key("n = 10  # ten\nprint(n*2)")).toBe(await key("n=25\nprint( n * 2 )"));
    expect(await key("rows = load(p)", "print(len(rows))")).toBe(
      await key("items = load(p)", "print(len(items))"),
    );
    expect(await key("rows = load(p)", "print(len(rows))")).not.toBe(
      await key("rows = load(p)", "print(len(other))"),
    );
    expect(await key("d = x.mean()")).not.toBe(await key("d = x.median()"));
  });

  it("marks what a function cannot hold, and reads each distinct cell once", async () => {
    const cells = await analyseCells(python, [
      "!ls -l",
      "await asyncio.sleep(1)",
      "x = 1",
      "x = 1",
      "def f(:",
    ]);
    expect(cells.size).toBe(4);
    expect(cells.get("!ls -l")?.problem).toBe("uses an IPython magic or `!command`");
    expect(cells.get("await asyncio.sleep(1)")?.problem).toBe("uses top-level await");
    expect(cells.get("x = 1")).toMatchObject({
      size: 3,
      bound: ["x"],
      literals: [{ text: "1", key: "int:1" }],
    });
    expect(cells.get("def f(:")?.problem).toMatch(/^is not valid Python \(/);
  });
});

describe("mining repeated chains", () => {
  it("finds one 3-cell chain run in three sessions with a different file each, and its one parameter", async () => {
    const { chains, skipped } = await mine([
      session("s1", ["x = 1", ...READ("a.txt")]),
      session("s2", READ("b.txt")),
      session("s3", [...READ("c.txt"), "print('bye')"]),
    ]);
    expect(skipped).toEqual([]);
    expect(chains).toHaveLength(1);
    const chain = chains[0];
    expect(chain?.length).toBe(3);
    expect(chain?.sessions).toEqual(["s1", "s2", "s3"]);
    expect(chain?.occurrences.map((o) => [o.session, o.events])).toEqual([
      ["s1", [7, 9, 11]],
      ["s2", [5, 7, 9]],
      ["s3", [5, 7, 9]],
    ]);
    // Literals of the chain: the file name (varies) and the 3 of [:3] (does not).
    expect(chain?.occurrences.map((o) => o.literals)).toEqual([
      ['"a.txt"', "3"],
      ['"b.txt"', "3"],
      ['"c.txt"', "3"],
    ]);
    expect(chain?.varying).toEqual([{ slots: [0] }]);
  });

  it("proposes nothing for unrelated cells, a pair seen twice in one session, or chains too small to matter", async () => {
    const unrelated = await mine([
      session("s1", ["import json\ncfg = json.load(open('c.json'))", "print(cfg['name'])"]),
      session("s2", ["import csv\nrows = list(csv.reader(open('d.csv')))", "print(len(rows))"]),
      session("s3", ["total = sum(range(100))\nprint(total)", "print(total / 2)"]),
    ]);
    expect(unrelated).toEqual({ chains: [], skipped: [] });
    const pair = ["rows = sorted('cab')\nrows.sort()", "print(rows[0], rows[-1])"];
    expect((await mine([session("s1", [...pair, "x = 2", ...pair])])).chains).toEqual([]);
    // Three times in one session is enough.
    expect((await mine([session("s1", [...pair, "x = 2", ...pair, ...pair])])).chains).toHaveLength(1);
    expect(
      (await mine([session("s1", ["x = 1", "print(x)"]), session("s2", ["x = 2", "print(x)"])])).chains,
    ).toEqual([]);
  });

  it("never builds a chain across a failed cell", async () => {
    const failed = (s: string[]) => [s[0] as string, { code: s[1] as string, ok: false }, s[2] as string];
    const { chains } = await mine([
      session("s1", failed(READ("a.txt"))),
      session("s2", failed(READ("b.txt"))),
    ]);
    expect(chains).toEqual([]);
  });

  it("reports a repeated chain that reads variables of earlier cells instead of proposing it", async () => {
    const cells = [
      "words = data.split()\ncounts = {}",
      "for w in words:\n    counts[w] = counts.get(w, 0) + 1",
    ];
    const { chains, skipped } = await mine([
      session("s1", ["data = 'a b'", ...cells]),
      session("s2", ["data = 'c d'", ...cells]),
    ]);
    expect(chains.map((c) => c.length)).toEqual([3]); // with the cell that made `data`, it is fine
    expect((await mine([session("s1", cells), session("s2", cells)])).skipped[0]?.problem).toBe(
      "reads `data`, made by earlier cells, not by the chain",
    );
    // Read before the chain binds it: `total` comes from outside even though a later cell assigns it.
    const late = ["print(total, len(items))\nitems = [1, 2]", "total = sum(items)\nprint(total + 1)"];
    expect((await mine([session("s1", late), session("s2", late)])).skipped[0]?.problem).toBe(
      "reads `total`, `items`, made by earlier cells, not by the chain",
    );
    expect(skipped).toEqual([]);
  });

  it("carries the imports of earlier cells into the chain", async () => {
    const cells = ["cfg = json.loads(open('a.json').read())", "print(sorted(cfg))"];
    const { chains } = await mine([
      session("s1", ["import json", ...cells]),
      session("s2", ["import os, json as json", "x = 1", ...cells]),
    ]);
    expect(chains[0]?.imports).toEqual(["import json"]);
    expect(chains[0]?.unresolved).toEqual([]);
  });

  it("skips chains whose occurrences differ in too many literals", async () => {
    const run = (a: number) => [
      `x = ${a}\ny = ${a + 1}\nz = ${a + 2}`,
      `w = ${a + 3}\nv = ${a + 4}\nprint(x, y, z, w, v)`,
    ];
    const { chains, skipped } = await mine([session("s1", run(1)), session("s2", run(10))]);
    expect(chains).toEqual([]);
    expect(skipped[0]?.problem).toBe("its occurrences differ in 5 literals (at most 4 make one skill)");
  });
});

describe("packaging a chain as a skill", () => {
  it("names the parameter after the variable, drops its assignment, returns what the last cell showed", async () => {
    const skill = await packaged([
      session("s1", READ("a.txt")),
      session("s2", READ("b.txt")),
      session("s3", [...READ("c.txt").slice(0, 2), { code: "sorted(set(words))[:3]", output: "['x']\n" }]),
    ]);
    expect(skill.name).toBe("words_from_path");
    expect(skill.parameters).toEqual([
      {
        name: "path",
        slots: [0],
        origin: "was bound to `path`",
        role: "read",
        values: ['"a.txt"', '"b.txt"', '"c.txt"'],
        strings: ["a.txt", "b.txt", "c.txt"],
      },
    ]);
    expect(skill.functionSource.split('"""')[2]).toBe(
      [
        "",
        "    text = open(path).read()",
        "",
        "    words = text.split()",
        "    print(len(words))",
        "",
        "    return sorted(set(words))[:3]",
      ].join("\n"),
    );
    expect(skill.description).toBe(
      "words_from_path(path): calls open, read, split, len, sorted, set; packaged from a 3-cell chain run 3 times in 3 sessions",
    );
    expect(skill.docstringSource).toEqual({
      by: "chain",
      note: "no model is asked before `relm harness skills --apply`",
    });
    expect(skill.docstring).toContain("This docstring was derived from the chain: no model is asked");
    // The newest run is replayed: its call, the value shown as the chain showed it, and its recorded output.
    expect(skill.smoke).toMatchObject({
      call: 'words_from_path(path="c.txt")',
      args: [{ name: "path", literal: '"c.txt"', role: "read", string: "c.txt" }],
      show: "_r",
      expected: "['x']\n",
      inputs: ["c.txt"],
      writes: [],
      needsValue: true,
    });
    expect(skill.code).toContain(`relm-chain: ${skill.signature}`);
    expect(skill.code).toContain('_SMOKE_TEST = {\n    "call": "words_from_path(path=\\"c.txt\\")"');
  });

  it("hoists imports, returns what the last cell printed, and makes the file it writes a parameter", async () => {
    const cells = (file: string) => [
      `import json\ncfg = json.load(open("${file}"))\nlen(cfg)`,
      {
        code: 'names = sorted(cfg)\njson.dump(names, open("names.json", "w"))\nprint(names[0], "first")',
        output: "a first\n",
      },
    ];
    const skill = await packaged([
      session("s1", [
        { code: cells("a.json")[0] as string, output: "2\n" },
        cells("a.json")[1] as { code: string },
      ]),
      session("s2", [
        { code: cells("b.json")[0] as string, output: "3\n" },
        cells("b.json")[1] as { code: string },
      ]),
    ]);
    expect(skill.parameters.map((p) => [p.name, p.role])).toEqual([
      ["path", "read"],
      ["out_path", "write"],
    ]);
    expect(skill.code).toMatch(/^import json\n\n__all__/m);
    expect(skill.functionSource).toContain('json.dump(names, open(out_path, "w"))');
    expect(skill.functionSource).toMatch(/\n {4}return names\[0\]$/);
    expect(skill.functionSource).not.toContain("len(cfg)"); // only displayed: left out
    expect(skill.smoke).toMatchObject({
      call: 'names_from_path(path="b.json", out_path="names.json")',
      show: 'print(_r, "first")',
      expected: "a first\n", // the first cell's displayed count is not expected again
      inputs: ["b.json"],
      writes: ["names.json"],
    });
  });

  it("keeps each candidate's name when packaged again with the model's docstring", async () => {
    const other = (file: string) => [
      `path = "${file}"\nwords = open(path).read().split()`,
      "print(len(words))\nsorted(words)[-1]",
    ];
    const sessions = [
      session("s1", READ("a.txt")),
      session("s2", READ("b.txt")),
      session("s3", other("c.txt")),
      session("s4", other("d.txt")),
    ];
    const { chains } = await mine(sessions);
    const { candidates } = await packageChains(python, chains, new Set(), () => true);
    expect(candidates.map((c) => c.name).sort()).toEqual(["words_from_path", "words_from_path_2"]);
    const second = candidates.find((c) => c.name === "words_from_path_2");
    if (!second) throw new Error("no second candidate");
    const documented = await withDocstring(
      python,
      second,
      { text: "Returns the last word of path, in sorted order.", model: "cheap" },
      () => true,
    );
    expect(documented.name).toBe("words_from_path_2");
    expect(documented.docstringSource).toEqual({ by: "model", model: "cheap" });
    expect(documented.code).toContain(
      'def words_from_path_2(path):\n    """Returns the last word of path, in sorted order."""\n',
    );
    expect(documented.code).toContain("relm-chain: ");
    expect(documented.smoke).toEqual(second.smoke);
  });

  it("cannot be smoke-tested when every recorded input is gone or its output was cut", async () => {
    const sessions = [session("s1", READ("a.txt")), session("s2", READ("b.txt"))];
    const gone = await packaged(sessions, (p) => p.endsWith("a.txt"));
    // The newest run's input is gone, so the older one is replayed.
    expect(gone.smoke).toMatchObject({ call: 'words_from_path(path="a.txt")' });
    const none = await packaged(sessions, () => false);
    expect(none.smoke).toEqual({
      problem:
        "it cannot be smoke-tested: s2: the recorded input b.txt no longer exists in /proj; s1: the recorded input a.txt no longer exists in /proj",
    });
    for (const s of sessions) for (const c of s.cells) c.complete = false;
    expect((await packaged(sessions)).smoke).toEqual({
      problem:
        "it cannot be smoke-tested: s2: its output was cut and the full text is gone; s1: its output was cut and the full text is gone",
    });
  });
});

describe("comparing outputs", () => {
  it("normalises line ends, trailing spaces, final blank lines, addresses and timestamps, nothing else", () => {
    expect(normaliseOutput("a  \r\n<obj at 0x7f3a2c1d9e80>\n2026-12-02T10:40:51.204Z done\n\n")).toBe(
      "a\n<obj at 0x…>\n<timestamp> done",
    );
    expect(normaliseOutput("3 words")).not.toBe(normaliseOutput("4 words"));
    expect(normaliseOutput(" leading")).toBe(" leading");
  });
});
