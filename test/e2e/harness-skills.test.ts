import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HarnessStore, scopeLocation } from "../../src/learning/store/index.js";
import { readJournal } from "../../src/session/index.js";
import { runRelm } from "../support/cli.js";
import { sessionIds, snapshot } from "../support/harness.js";
import { byTask, echoLastCell } from "../support/router.js";
import { type Rig, useRigs } from "../support/scripted.js";

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

async function threeSessions(extra: Record<string, ReturnType<typeof USE>> = {}): Promise<Rig> {
  const rig = await startRig("openai", {
    script: byTask({
      "ROOT: count a": chain("notes-a.txt"),
      "ROOT: count b": chain("notes-b.txt"),
      "ROOT: count c": chain("notes-c.txt"),
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
    parameters: { name: string; values: string[] }[];
    sessions: string[];
    occurrences: { session: string; events: number[] }[];
    functionSource: string;
    code: string;
    smoke: { call?: string; expected?: string; problem?: string; recorded?: { session: string } };
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

describe("skills from repeated work", () => {
  it(
    "proposes one skill that parameterises the file name, applies it after a forked-kernel smoke test, and a new session uses it",
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
          values: ['"notes-a.txt"', '"notes-b.txt"', '"notes-c.txt"'],
        },
      ]);
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
      expect(applied.stdout).toMatch(/in a fresh kernel forked from template \d+, working directory /);
      expect(applied.stdout).toContain("passed: the output matches the recorded output");
      const entry = new HarnessStore(scopeLocation("project", { cwd: rig.cwd, home: rig.home }))
        .entries()
        .find((e) => e.kind === "skill");
      expect(entry).toMatchObject({ title: "top_from_path", source: "refine" });
      expect(entry?.code).toContain('_SMOKE_TEST = {\n    "call": "top_from_path(path=\\"notes-c.txt\\")"');
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
      expect(rejected.stderr).toContain("failed: the output differs from the recorded output");
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
});
