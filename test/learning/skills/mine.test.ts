import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { chainKey, mineChains, type RecordedSession } from "../../../src/learning/skills/mine-chains.js";
import { normaliseOutput, packageChain } from "../../../src/learning/skills/mine-package.js";
import { tokenize } from "../../../src/learning/skills/mine-tokens.js";

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

const key = (...cells: string[]) => chainKey(cells);

const READ = (file: string) => [
  `path = "${file}"\ntext = open(path).read()`,
  "words = text.split()\nprint(len(words))",
  "sorted(set(words))[:3]",
];

/** Package the first mined chain, with its first occurrence's sources. */
function packaged(sessions: RecordedSession[], exists: (p: string) => boolean = () => true) {
  const { chains } = mineChains(sessions);
  const chain = chains[0];
  if (!chain) throw new Error("no chain");
  const first = chain.occurrences[0];
  const cells = sessions.find((s) => s.id === first?.session)?.cells ?? [];
  const sources = chain.cells.map((_, i) => cells[(first?.start ?? 0) + i]?.code ?? "");
  return packageChain(chain, sources, new Set(), exists);
}

describe("tokenizing cells", () => {
  it("tells strings, comments, numbers and names apart and keeps indentation levels", () => {
    const { tokens, problem } = tokenize(
      'x = rb"a\\"b"  # c\nif x:\n    y = """one\n# not a comment\n"""\n    z = 1_000.5e3\nw = f"{x}"',
    );
    expect(problem).toBeUndefined();
    const shown = tokens.filter((t) => t.kind !== "newline").map((t) => `${t.kind}:${t.text}@${t.level}`);
    expect(shown).toEqual([
      "name:x@0",
      "op:=@0",
      'string:rb"a\\"b"@0',
      "comment:# c@0",
      "name:if@0",
      "name:x@0",
      "op::@0",
      "name:y@1",
      "op:=@1",
      'string:"""one\n# not a comment\n"""@1',
      "name:z@1",
      "op:=@1",
      "number:1_000.5e3@1",
      "name:w@0",
      "op:=@0",
      'string:f"{x}"@0',
    ]);
  });

  it("marks what a function cannot hold: magics, shell escapes, top-level await, help", () => {
    expect(tokenize("!ls -l").problem).toBe("uses an IPython magic or `!command`");
    expect(tokenize("x = 1\n%timeit f(x)").problem).toBe("uses an IPython magic or `!command`");
    expect(tokenize("await asyncio.sleep(1)").problem).toBe("uses top-level await");
    expect(tokenize("async def f():\n    await g()").problem).toBeUndefined();
    expect(tokenize("len?").problem).toContain("does not allow");
    expect(tokenize("x = 3 % 2\ny = x != 1").problem).toBeUndefined();
  });
});

describe("normalising chains", () => {
  it("ignores comments, spacing and the values of literals", () => {
    expect(key("n = 10  # ten\nprint(n*2)")).toBe(key("n=25\nprint( n * 2 )"));
    expect(key("s = 'a.txt'")).toBe(key('s = "b.csv"'));
    expect(key("s = 'a'")).not.toBe(key("s = 1"));
  });

  it("abstracts variables the chain binds when renamed consistently, never the names it reads", () => {
    expect(key("rows = load(p)", "print(len(rows))")).toBe(key("items = load(p)", "print(len(items))"));
    // Inconsistent: the second cell reads something else.
    expect(key("rows = load(p)", "print(len(rows))")).not.toBe(key("rows = load(p)", "print(len(other))"));
    // Free names and attributes are the meaning of the code: json.load is not yaml.load.
    expect(key("import json\nd = json.load(f)")).not.toBe(key("import yaml\nd = yaml.load(f)"));
    expect(key("d = x.mean()")).not.toBe(key("d = x.median()"));
    // Keyword argument names stay; loop, with and comprehension variables are renamable.
    expect(key("f(sep=',')")).not.toBe(key("f(end=',')"));
    expect(key("for a in xs:\n    print(a)\n[b for b in xs]")).toBe(
      key("for i in xs:\n    print(i)\n[j for j in xs]"),
    );
    expect(key("with open(p) as fh:\n    t = fh.read()")).toBe(key("with open(p) as g:\n    u = g.read()"));
  });

  it("keeps indentation: the same lines in and out of a loop differ", () => {
    expect(key("for x in xs:\n    y = x\n    print(y)")).not.toBe(key("for x in xs:\n    y = x\nprint(y)"));
    expect(key("for x in xs:\n  print(x)")).toBe(key("for x in xs:\n        print(x)"));
  });
});

describe("mining repeated chains", () => {
  it("finds one 3-cell chain run in three sessions with a different file each, and its one parameter", () => {
    const { chains, skipped } = mineChains([
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

  it("proposes nothing for unrelated cells, a pair seen twice in one session, or chains too small to matter", () => {
    const unrelated = mineChains([
      session("s1", ["import json\ncfg = json.load(open('c.json'))", "print(cfg['name'])"]),
      session("s2", ["import csv\nrows = list(csv.reader(open('d.csv')))", "print(len(rows))"]),
      session("s3", ["total = sum(range(100))\nprint(total)", "print(total / 2)"]),
    ]);
    expect(unrelated).toEqual({ chains: [], skipped: [] });
    const pair = ["rows = sorted('cab')\nrows.sort()", "print(rows[0], rows[-1])"];
    expect(mineChains([session("s1", [...pair, "x = 2", ...pair])]).chains).toEqual([]);
    // Three times in one session is enough.
    expect(mineChains([session("s1", [...pair, "x = 2", ...pair, ...pair])]).chains).toHaveLength(1);
    expect(
      mineChains([session("s1", ["x = 1", "print(x)"]), session("s2", ["x = 2", "print(x)"])]).chains,
    ).toEqual([]);
  });

  it("never builds a chain across a failed cell", () => {
    const failed = (s: string[]) => [s[0] as string, { code: s[1] as string, ok: false }, s[2] as string];
    const { chains } = mineChains([
      session("s1", failed(READ("a.txt"))),
      session("s2", failed(READ("b.txt"))),
    ]);
    expect(chains).toEqual([]);
  });

  it("reports a repeated chain that reads variables of earlier cells instead of proposing it", () => {
    const cells = [
      "words = data.split()\ncounts = {}",
      "for w in words:\n    counts[w] = counts.get(w, 0) + 1",
    ];
    const { chains, skipped } = mineChains([
      session("s1", ["data = 'a b'", ...cells]),
      session("s2", ["data = 'c d'", ...cells]),
    ]);
    expect(chains.map((c) => c.length)).toEqual([3]); // with the cell that made `data`, it is fine
    expect(mineChains([session("s1", cells), session("s2", cells)]).skipped[0]?.problem).toBe(
      "reads `data`, made by earlier cells, not by the chain",
    );
    expect(skipped).toEqual([]);
  });

  it("carries the imports of earlier cells into the chain", () => {
    const cells = ["cfg = json.loads(open('a.json').read())", "print(sorted(cfg))"];
    const { chains } = mineChains([
      session("s1", ["import json", ...cells]),
      session("s2", ["import os, json as json", "x = 1", ...cells]),
    ]);
    expect(chains[0]?.imports).toEqual(["import json"]);
    expect(chains[0]?.unresolved).toEqual([]);
  });

  it("skips chains whose occurrences differ in too many literals", () => {
    const run = (a: number) => [
      `x = ${a}\ny = ${a + 1}\nz = ${a + 2}`,
      `w = ${a + 3}\nv = ${a + 4}\nprint(x, y, z, w, v)`,
    ];
    const { chains, skipped } = mineChains([session("s1", run(1)), session("s2", run(10))]);
    expect(chains).toEqual([]);
    expect(skipped[0]?.problem).toBe("its occurrences differ in 5 literals (at most 4 make one skill)");
  });
});

describe("packaging a chain as a skill", () => {
  it("names the parameter after the variable, drops its assignment, returns what the last cell showed", () => {
    const skill = packaged([
      session("s1", READ("a.txt")),
      session("s2", READ("b.txt")),
      session("s3", [...READ("c.txt").slice(0, 2), { code: "sorted(set(words))[:3]", output: "['x']\n" }]),
    ]);
    expect(skill.name).toBe("words_from_path");
    expect(skill.parameters).toEqual([
      { name: "path", slots: [0], origin: "was bound to `path`", values: ['"a.txt"', '"b.txt"', '"c.txt"'] },
    ]);
    const body = skill.functionSource.split('"""')[2];
    expect(body).toBe(
      [
        "",
        "    # cell 1 of 3 (journal event 5)",
        "    text = open(path).read()",
        "    # cell 2 of 3 (journal event 7)",
        "    words = text.split()",
        "    print(len(words))",
        "    # cell 3 of 3 (journal event 9)",
        "    return sorted(set(words))[:3]",
      ].join("\n"),
    );
    expect(skill.description).toBe(
      "words_from_path(path): calls open, read, split, len, sorted, set; packaged from a 3-cell chain run 3 times in 3 sessions",
    );
    // The newest run is replayed: its call and its recorded output.
    expect(skill.smoke).toMatchObject({
      call: 'words_from_path(path="c.txt")',
      cell: 'import words_from_path\nwords_from_path.words_from_path(path="c.txt")',
      expected: "['x']\n",
      inputs: ["c.txt"],
    });
    expect(skill.code).toContain(`relm-chain: ${skill.signature}`);
    expect(skill.code).toContain('_SMOKE_TEST = {\n    "call": "words_from_path(path=\\"c.txt\\")"');
  });

  it("names parameters from keyword arguments, reads and kinds, and avoids names already in use", () => {
    const cell = (sep: string, n: number, file: string) => [
      `rows = [l.split(sep="${sep}") for l in open("${file}")]\nn = len(rows)`,
      `print(rows[:${n}], n, "${sep}${n}")`,
    ];
    const skill = packaged([session("s1", cell(",", 2, "a.csv")), session("s2", cell(";", 5, "b.csv"))]);
    expect(skill.parameters.map((p) => [p.name, p.origin])).toEqual([
      ["sep", "was passed as sep="],
      ["path", "the file the chain read"],
      ["n_2", "a number in the chain"],
      ["text", "a string in the chain"],
    ]);
    expect(skill.functionSource).toContain("def rows_from_sep(sep, path, n_2, text):");
    expect(skill.functionSource).toContain("for l in open(path)]");
    expect(skill.functionSource).toContain("print(rows[:n_2], n, text)");
  });

  it("shows earlier cells' displayed values, keeps silenced and printed ones as they were, and leaves strings alone", () => {
    const cells = (n: number) => [
      `data = list(range(${n}))\nlen(data)`,
      'doc = """line one\nline two"""\nprint(doc)',
      "total = sum(data)\ntotal;",
    ];
    const skill = packaged([session("s1", cells(3)), session("s2", cells(4))]);
    const body = skill.functionSource.split('"""').slice(2).join('"""');
    expect(body).toContain("    _show(len(data))");
    expect(body).toContain('    doc = """line one\nline two"""\n    print(doc)');
    expect(body).toContain("    total;");
    expect(body).not.toContain("return");
    expect(skill.functionSource).toContain("Returns None; what the cells printed is printed.");
    expect(skill.code).toContain("def _show(value):");
  });

  it("generates code Python compiles", () => {
    const cells = (n: number, name: string) => [
      `import math\nvalues = [math.sqrt(i) for i in range(${n})]  # roots\nvalues[:2]`,
      `# pick the best root\nlabel = '${name}'\nif values:\n    best = max(values)\nelse:\n    best = None\nprint(label, best)`,
      "best",
    ];
    const skill = packaged([session("s1", cells(4, "a\\tb")), session("s2", cells(9, 'say "hi"'))]);
    const python = process.env.RELM_PYTHON || "python3";
    const run = spawnSync(python, ["-c", "import sys; compile(sys.stdin.read(), 'skill', 'exec')"], {
      input: skill.code,
      encoding: "utf8",
    });
    expect(run.status, `${run.stderr}\n${skill.code}`).toBe(0);
    expect(skill.parameters.map((p) => p.name)).toEqual(["n", "label"]);
    // The whole-line comment says what the chain does; the one after code (# roots) does not.
    expect(skill.description).toBe(
      "best_from_n(n, label): pick the best root; packaged from a 3-cell chain run 2 times in 2 sessions",
    );
  });

  it("cannot be smoke-tested when every recorded input is gone or its output was cut", () => {
    const sessions = [session("s1", READ("a.txt")), session("s2", READ("b.txt"))];
    const gone = packaged(sessions, (p) => p.endsWith("a.txt"));
    // The newest run's input is gone, so the older one is replayed.
    expect(gone.smoke).toMatchObject({ call: 'words_from_path(path="a.txt")' });
    const none = packaged(sessions, () => false);
    expect(none.smoke).toEqual({
      problem:
        "it cannot be smoke-tested: s2: the recorded input b.txt no longer exists in /proj; s1: the recorded input a.txt no longer exists in /proj",
    });
    for (const s of sessions) for (const c of s.cells) c.complete = false;
    expect(packaged(sessions).smoke).toEqual({
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
