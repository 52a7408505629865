import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { probeSandbox } from "../../../src/kernel/sandbox/index.js";
import { HarnessStore, scopeLocation } from "../../../src/learning/store/index.js";
import { readJournal } from "../../../src/session/index.js";
import { runRelm } from "../../support/cli.js";
import { sessionIds, snapshot } from "../../support/harness.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();

const TEXTS: Record<string, string> = {
  "notes-a.txt": "apple pear apple fig apple pear\n",
  "notes-b.txt": "kiwi kiwi lime\nlime kiwi plum\n",
  "notes-c.txt": "one two three two three three\n",
};

/** The same 3-cell chain each session runs, on its own file. */
function chain(file: string) {
  return [
    { code: `path = "${file}"\ntext = open(path).read()\nprint(len(text), "chars")` },
    {
      code: "# count the words\nwords = text.split()\ncounts = {}\nfor w in words:\n    counts[w] = counts.get(w, 0) + 1\nprint(len(words), 'words')",
    },
    { code: "top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:2]\ntop" },
    echoLastCell,
  ];
}

const USE = (call: string) => [{ code: `import top_from_path\nprint(top_from_path.${call})` }, echoLastCell];

/** What the refine model answers when asked for a docstring (src/learning/skills/skill-docstring.ts). */
const DOCSTRING = [
  "Counts the words of a text file and returns the two most frequent.",
  "",
  "Args:",
  "    path: the text file to read.",
  "",
  "Returns:",
  "    The two most frequent words with their counts, most frequent first.",
].join("\n");
const ASKED = "Write the docstring for the Python function";

type Steps = Parameters<typeof byTask>[0][string];

async function threeSessions(extra: Record<string, Steps> = {}): Promise<Rig> {
  const rig = await startRig("openai", {
    script: byTask({
      "ROOT: count a": chain("notes-a.txt"),
      "ROOT: count b": chain("notes-b.txt"),
      "ROOT: count c": chain("notes-c.txt"),
      [ASKED]: [{ text: DOCSTRING }],
      ...extra,
    }),
  });
  for (const [file, text] of Object.entries(TEXTS)) writeFileSync(join(rig.cwd, file), text);
  for (const task of ["ROOT: count a", "ROOT: count b", "ROOT: count c"]) {
    const run = await runRelm(["run", task], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
  }
  return rig;
}

const relm = (rig: Rig, ...args: string[]) => runRelm(args, { env: rig.env, cwd: rig.cwd });

/** The session that ran `task` (ids are random, so found by the title). */
function sessionOf(rig: Rig, task: string): string {
  const id = sessionIds(rig.home).find(
    (s) => readJournal(join(rig.home, "sessions", s, "journal.jsonl")).header.title === task,
  );
  if (!id) throw new Error(`no session ran ${task}`);
  return id;
}

/** What a session's cells printed, one after the other. */
function printed(rig: Rig, id: string): string {
  const { events } = readJournal(join(rig.home, "sessions", id, "journal.jsonl"));
  return events.flatMap((e) => (e.type === "cell_output" ? [e.output] : [])).join("");
}

interface Suggested {
  candidates: {
    name: string;
    parameters: { name: string; origin: string; role: string; values: string[] }[];
    sessions: string[];
    occurrences: { session: string; events: number[] }[];
    functionSource: string;
    code: string;
    returns: { kind: string; expr: string | null };
    smoke: {
      call?: string;
      expected?: string;
      writes?: string[];
      problem?: string;
      recorded?: { session: string };
    };
  }[];
  applied: { skill: string; scope: string; occurrences: unknown[] }[];
  skipped: unknown[];
}

async function suggest(rig: Rig): Promise<Suggested> {
  const out = await relm(rig, "harness", "skills", "--suggest", "--json");
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as Suggested;
}

// Each test runs four to six real sessions (kernels included) one after the other.
const SLOW = { timeout: 180_000 };

/** What the smoke test says of its confinement: bubblewrap where it works here, else why not. */
const CONFINED = probeSandbox(process.env).ok ? /\n {2}confined by bubblewrap: / : /\n {2}not confined: /;

describe("skills from repeated work", () => {
  it(
    "proposes one skill that parameterises the file name, applies it with the refine model's docstring after a smoke test in a scratch copy, and a new session uses it",
    SLOW,
    async () => {
      const rig = await threeSessions({
        "ROOT: use the skill": USE('top_from_path(path="notes-b.txt")'),
        "ROOT: new file": USE('top_from_path(path="notes-d.txt")'),
      });
      const [a, b, c] = ["ROOT: count a", "ROOT: count b", "ROOT: count c"].map((t) => sessionOf(rig, t)) as [
        string,
        string,
        string,
      ];
      const before = snapshot(join(rig.cwd, ".relm"), join(rig.home, "harness"), join(rig.home, "skills"));

      const found = await suggest(rig);
      expect(found.candidates).toHaveLength(1);
      const skill = found.candidates[0] as Suggested["candidates"][number];
      expect(skill.name).toBe("top_from_path");
      expect(skill.parameters).toEqual([
        {
          name: "path",
          origin: "was bound to `path`",
          role: "read",
          values: ['"notes-a.txt"', '"notes-b.txt"', '"notes-c.txt"'],
        },
      ]);
      expect(skill.returns).toEqual({ kind: "display", expr: "top", show: "_r" });
      expect(skill.sessions.sort()).toEqual([a, b, c].sort());
      expect(skill.occurrences.every((o) => o.events.length === 3)).toBe(true);
      // The file name is the parameter: the body opens `path`, and no recorded name is left in the code.
      const body = skill.functionSource.split('"""')[2] as string;
      expect(skill.functionSource).toMatch(/^def top_from_path\(path\):/);
      expect(body).toContain("text = open(path).read()");
      expect(body).toMatch(/\n {4}return top$/);
      expect(body).not.toMatch(/notes-[abc]\.txt/);
      expect(skill.smoke.call).toBe('top_from_path(path="notes-c.txt")');
      expect(skill.smoke.expected).toBe(printed(rig, c));

      const human = await relm(rig, "harness", "skills", "--suggest");
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toContain("1 skill candidate from 3 journal(s)");
      expect(human.stdout).toContain(`session ${a}, journal events`);
      expect(human.stdout).toContain("def top_from_path(path):");
      expect(human.stdout).toContain("Nothing was written.");
      // --suggest writes nothing anywhere.
      expect(snapshot(join(rig.cwd, ".relm"), join(rig.home, "harness"), join(rig.home, "skills"))).toEqual(
        before,
      );

      const applied = await relm(rig, "harness", "skills", "--apply", "top_from_path");
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toMatch(/^docstring: written by the refine model \S+\n/);
      expect(applied.stdout).toMatch(
        /in a fresh kernel forked from template \d+, in a scratch copy of the project \(\d+ files, [\d.]+ MB; [^)]*\), working directory \S*relm-skill-/,
      );
      expect(applied.stdout).toMatch(CONFINED);
      expect(applied.stdout).toContain(
        "passed: the output matches the recorded output (3 line(s)); it has a docstring; it returned a value",
      );
      const entry = new HarnessStore(scopeLocation("project", { cwd: rig.cwd, home: rig.home }))
        .entries()
        .find((e) => e.kind === "skill");
      expect(entry).toMatchObject({ title: "top_from_path", source: "refine" });
      expect(entry?.code).toContain('_SMOKE_TEST = {\n    "call": "top_from_path(path=\\"notes-c.txt\\")"');
      // The model's docstring, as the function's own.
      expect(entry?.code).toContain(
        'def top_from_path(path):\n    """Counts the words of a text file and returns the two most frequent.\n\n    Args:\n        path: the text file to read.\n',
      );
      const folder = join(rig.cwd, ".relm", "skills", "top_from_path");
      expect(readFileSync(join(folder, "SKILL.md"), "utf8")).toContain("name: top_from_path");
      expect(existsSync(join(folder, "top_from_path", "__init__.py"))).toBe(true);
      const listing = await relm(rig, "harness", "skills");
      expect(listing.stdout).toMatch(
        /^top_from_path {2}project {2}uses 0 {2}import top_from_path {2}top_from_path\(path\): /m,
      );
      const log = await relm(rig, "harness", "log", "--scope", "project");
      expect(log.stdout).toContain("skill top_from_path from repeated work");

      // A new session imports it and gets what session b's cells printed.
      const used = await relm(rig, "run", "ROOT: use the skill");
      expect(used.code, used.stderr).toBe(0);
      expect(printed(rig, sessionOf(rig, "ROOT: use the skill"))).toBe(printed(rig, b));
      // A file none of the sessions saw: the parameter really is the file name.
      writeFileSync(join(rig.cwd, "notes-d.txt"), "x y x\n");
      const fresh = await relm(rig, "run", "ROOT: new file");
      expect(fresh.code, fresh.stderr).toBe(0);
      expect(fresh.stdout.trim().split("\n")).toEqual(["6 chars", "3 words", "[('x', 2), ('y', 1)]"]);

      // Applied once: the chain is recognised and not proposed again.
      const again = await suggest(rig);
      expect(again.candidates).toEqual([]);
      expect(again.applied).toEqual([
        { skill: "top_from_path", scope: "project", occurrences: skill.occurrences },
      ]);
      const twice = await relm(rig, "harness", "skills", "--apply", "top_from_path");
      expect(twice.code).toBe(1);
      expect(twice.stderr).toBe(
        "relm: top_from_path is already applied (skill top_from_path in the project scope)\n",
      );
    },
  );

  it(
    "rejects a skill whose smoke test fails, with the test's output, and says when an input is gone; bad arguments are usage errors",
    SLOW,
    async () => {
      const rig = await threeSessions();
      const unknown = await relm(rig, "harness", "skills", "--apply", "nope");
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toBe(
        'relm: no skill candidate "nope"; the candidates are top_from_path (relm harness skills --suggest shows them)\n',
      );
      const scope = await relm(rig, "harness", "skills", "--suggest", "--scope", "user");
      expect(scope.code).toBe(2);
      expect(scope.stderr).toContain("--scope says where --apply puts a skill");
      const session = await relm(rig, "harness", "skills", "--apply", "top_from_path", "--scope", "session");
      expect(session.code).toBe(2);
      expect(session.stderr).toContain("the session scope needs a session: add --session ID");
      const help = await relm(rig, "harness", "skills", "--help");
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("--suggest");
      expect(help.stdout).toContain("--apply <name>");

      const before = snapshot(join(rig.cwd, ".relm"));
      // The input the smoke test replays (the newest run's) has changed since it was recorded.
      writeFileSync(join(rig.cwd, "notes-c.txt"), "one one one\n");
      const rejected = await relm(rig, "harness", "skills", "--apply", "top_from_path");
      expect(rejected.code).toBe(1);
      expect(rejected.stdout).toBe("");
      expect(rejected.stderr).toContain('smoke test: top_from_path(path="notes-c.txt")');
      expect(rejected.stderr).toContain("  failed: the output differs from the recorded output");
      expect(rejected.stderr).toContain("-   30 chars");
      expect(rejected.stderr).toContain("+   12 chars");
      expect(rejected.stderr).toContain("+   [('one', 3)]");
      expect(rejected.stderr).toContain(
        "relm: top_from_path was rejected: its smoke test failed; nothing was applied",
      );
      expect(snapshot(join(rig.cwd, ".relm"))).toEqual(before);

      // With every recorded input gone there is nothing to replay: no smoke test, no apply.
      for (const file of Object.keys(TEXTS)) rmSync(join(rig.cwd, file));
      const found = await suggest(rig);
      expect(found.candidates[0]?.smoke.problem).toContain("it cannot be smoke-tested: ");
      expect(found.candidates[0]?.smoke.problem).toContain("the recorded input notes-c.txt no longer exists");
      const gone = await relm(rig, "harness", "skills", "--apply", "top_from_path");
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain("relm: top_from_path is not applied: it cannot be smoke-tested");
    },
  );
  it(
    "a chain that writes a file: the file becomes a parameter, the smoke test writes it in the scratch copy and the user's file is unchanged; no model, a derived docstring",
    SLOW,
    async () => {
      const cells = (file: string) => [
        { code: `import json\npath = "${file}"\nwords = open(path).read().split()\nlen(words)` },
        {
          code: 'counts = {w: words.count(w) for w in sorted(set(words))}\nwith open("summary.json", "w") as fh:\n    fh.write(json.dumps(counts))\nprint(len(counts), "distinct words")',
        },
        echoLastCell,
      ];
      const rig = await startRig("openai", {
        script: byTask({
          "ROOT: sum a": cells("notes-a.txt"),
          "ROOT: sum b": cells("notes-b.txt"),
          "ROOT: sum c": cells("notes-c.txt"),
          // The refine model refuses: the docstring is derived from the chain, and said so.
          [ASKED]: [{ status: 400 }],
          "ROOT: use it": [
            {
              code: 'import counts_from_path\nn = counts_from_path.counts_from_path(path="notes-b.txt", out_path="b.json")\nprint(n)',
            },
            echoLastCell,
          ],
        }),
      });
      for (const [file, text] of Object.entries(TEXTS)) writeFileSync(join(rig.cwd, file), text);
      for (const task of ["ROOT: sum a", "ROOT: sum b", "ROOT: sum c"]) {
        const run = await relm(rig, "run", task);
        expect(run.code, run.stderr).toBe(0);
      }
      const summary = join(rig.cwd, "summary.json");
      expect(JSON.parse(readFileSync(summary, "utf8"))).toEqual({ one: 1, three: 3, two: 2 });
      // The user's own file now, which no smoke test may touch.
      writeFileSync(summary, "my own summary\n");

      const found = await suggest(rig);
      const skill = found.candidates[0] as Suggested["candidates"][number];
      expect(skill.name).toBe("counts_from_path");
      expect(skill.parameters.map((p) => [p.name, p.role, p.values])).toEqual([
        ["path", "read", ['"notes-a.txt"', '"notes-b.txt"', '"notes-c.txt"']],
        ["out_path", "write", ['"summary.json"', '"summary.json"', '"summary.json"']],
      ]);
      expect(skill.code).toMatch(/\nimport json\n\n__all__ = \["counts_from_path"\]\n/);
      const body = skill.functionSource.split('"""')[2] as string;
      expect(body).not.toContain("import");
      expect(body).toContain('with open(out_path, "w") as fh:');
      expect(body).not.toContain("len(words)"); // it only displayed a count: left out
      expect(body).toMatch(/\n {4}return len\(counts\)$/);
      expect(skill.returns).toEqual({
        kind: "print",
        expr: "len(counts)",
        show: 'print(_r, "distinct words")',
      });
      expect(skill.smoke.writes).toEqual(["summary.json"]);
      expect(skill.smoke.expected).toBe("3 distinct words\n");

      const applied = await relm(rig, "harness", "skills", "--apply", "counts_from_path");
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toMatch(
        /^docstring: derived from the chain \(the refine model \(scripted\) failed: .*HTTP 400/,
      );
      expect(applied.stdout).toContain("it returned a value; it wrote summary.json in the copy");
      expect(applied.stdout).toMatch(CONFINED);
      expect(readFileSync(summary, "utf8")).toBe("my own summary\n");
      // The scratch copy is gone once the test ran.
      const where = /working directory (\S+)/.exec(applied.stdout)?.[1] as string;
      expect(where).toContain("relm-skill-");
      expect(existsSync(where)).toBe(false);
      const entry = new HarnessStore(scopeLocation("project", { cwd: rig.cwd, home: rig.home }))
        .entries()
        .find((e) => e.kind === "skill");
      expect(entry?.code?.replace(/\s+/g, " ")).toContain(
        "This docstring was derived from the chain: the refine model (scripted) failed: ",
      );

      // Called by a new session, it writes where it is told, and returns the count.
      const used = await relm(rig, "run", "ROOT: use it");
      expect(used.code, used.stderr).toBe(0);
      expect(used.stdout.trim()).toBe("3");
      expect(JSON.parse(readFileSync(join(rig.cwd, "b.json"), "utf8"))).toEqual({
        kiwi: 3,
        lime: 2,
        plum: 1,
      });
      expect(readFileSync(summary, "utf8")).toBe("my own summary\n");
    },
  );
});
