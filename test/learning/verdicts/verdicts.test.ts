// The window comparison behind verdicts (src/agent/verdict-*.ts), in process: synthetic journals on disk,
// a real harness store, no model and no kernel.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Entry,
  HarnessStore,
  type Revision,
  renderedLine,
  scopeLocation,
  VerdictLog,
} from "../../../src/learning/store/index.js";
import { readTrace, type SessionTrace } from "../../../src/learning/verdicts/verdict-journal.js";
import { editSide, revisionSide } from "../../../src/learning/verdicts/verdict-sides.js";
import { attemptsOf, cellsOf, type Unit } from "../../../src/learning/verdicts/verdict-units.js";
import {
  judgeAttempts,
  judgeCells,
  WINDOW,
  windows,
} from "../../../src/learning/verdicts/verdict-windows.js";
import { evaluateVerdicts } from "../../../src/learning/verdicts/verdicts.js";
import type { JournalBody } from "../../../src/session/types.js";
import { tempDir } from "../../support/cli.js";

const BASE = "You are relm.";
const memory: Entry = {
  id: "mem-abc123",
  kind: "memory",
  title: "data",
  content: "The data file is data.csv, not data.json.",
  source: "refine",
  created: "2026-01-01T00:00:00.000Z",
  updated: "2026-01-01T00:00:00.000Z",
};
const withMemory = `${BASE}\n# Harness\n## Memories\n${renderedLine(memory)}`;

const usage = (tokens: number) => ({
  inputTokens: tokens,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  estimated: false,
});
const reply = (tokens = 100, text = ""): JournalBody => ({
  type: "model_response",
  turn: 1,
  text,
  toolCalls: [],
  usage: usage(tokens),
  cost: null,
  stopReason: "stop",
  requestBytes: 10,
  attempts: 1,
  durationMs: 1,
});
const gate = (passed: boolean, output = "boom"): JournalBody => ({
  type: "gate_run",
  passed,
  results: [
    { command: "make check", exitCode: passed ? 0 : 1, passed, timedOut: false, output, durationMs: 1 },
  ],
  skipped: [],
  sameFailures: passed ? 0 : 1,
});
const cell = (code: string): JournalBody => ({ type: "cell", turn: 1, callId: "c", code });
const output = (error?: { name: string; value: string }): JournalBody => ({
  type: "cell_output",
  turn: 1,
  callId: "c",
  executionCount: 1,
  status: error ? "error" : "ok",
  output: "",
  outputChars: 0,
  truncated: false,
  imageFiles: [],
  ...(error ? { error } : {}),
  durationMs: 1,
});
const task = (text: string): JournalBody => ({ type: "user", text });
const continuation: JournalBody = { type: "user", text: "[relm: autonomous mode] The work is not done yet" };
const end: JournalBody = { type: "autonomy_end", outcome: "gates passed", report: "" };

/** A task that needs `fails` failing gate runs, `turns` model calls per try, then passes (or never, with `pass: false`). */
function climb(name: string, fails: number, options: { turns?: number; pass?: boolean } = {}): JournalBody[] {
  const turns = options.turns ?? 1;
  const tries: JournalBody[] = [];
  for (let i = 0; i <= fails; i++) {
    if (i > 0) tries.push(continuation);
    for (let t = 0; t < turns; t++) tries.push(reply());
    const passes = i === fails && options.pass !== false;
    tries.push(gate(passes));
  }
  return [task(name), ...tries, end];
}

const dirs: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

function rig() {
  const home = tempDir("relm-verdict-home-");
  const cwd = tempDir("relm-verdict-cwd-");
  dirs.push(home, cwd);
  mkdirSync(join(cwd.path, ".relm"), { recursive: true });
  return { home: home.path, cwd: cwd.path };
}

let clock = Date.parse("2026-03-01T00:00:00.000Z");
const tick = () => {
  clock += 60_000;
  return new Date(clock).toISOString();
};

/** A root session's journal as relm writes it: header, then numbered events. */
function writeSession(home: string, cwd: string, id: string, prompt: string, events: JournalBody[]): void {
  const dir = join(home, "sessions", id);
  mkdirSync(dir, { recursive: true });
  const created = tick();
  const header = {
    type: "header",
    version: 1,
    id,
    created,
    cwd,
    title: id,
    provider: "openai",
    model: "m",
    relm: "0",
  };
  const lines = [
    header,
    ...[{ type: "system_prompt", text: prompt }, ...events].map((e, i) => ({ ...e, n: i + 1, t: tick() })),
  ];
  writeFileSync(join(dir, "journal.jsonl"), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
}

function trace(events: JournalBody[], prompt = BASE): SessionTrace {
  const h = rig();
  writeSession(h.home, h.cwd, "s0000001", prompt, events);
  return readTrace(join(h.home, "sessions", "s0000001", "journal.jsonl")) as SessionTrace;
}

const addRevision = (): Revision => ({
  v: 1,
  rev: "rtest001",
  seq: 1,
  parent: null,
  time: "2026-01-01T00:00:00.000Z",
  author: "user",
  reason: "test",
  evidence: null,
  edits: [{ op: "add", id: memory.id, before: null, after: memory }],
});

describe("which side of an edit a prompt is on", () => {
  it("add: with when the entry's line is there, without when its id is absent, neither for another version", () => {
    const edit = addRevision().edits[0]!;
    expect(editSide(edit, withMemory)).toBe("with");
    expect(editSide(edit, BASE)).toBe("without");
    const other = withMemory.replace("data.csv", "data.tsv");
    expect(editSide(edit, other)).toBe("neither");
  });

  it("update and remove look for the versions before and after", () => {
    const after = { ...memory, content: "The data file is data.parquet." };
    const update = { op: "update" as const, id: memory.id, before: memory, after };
    expect(editSide(update, withMemory)).toBe("without");
    expect(editSide(update, `${BASE}\n${renderedLine(after)}`)).toBe("with");
    expect(editSide(update, BASE)).toBe("neither");
    const remove = { op: "remove" as const, id: memory.id, before: memory, after: null };
    expect(editSide(remove, withMemory)).toBe("without");
    expect(editSide(remove, BASE)).toBe("with");
  });

  it("a revision is on one side only when all its edits are", () => {
    const other: Entry = { ...memory, id: "mem-zzz999", content: "Another lesson." };
    const revision = {
      ...addRevision(),
      edits: [...addRevision().edits, { op: "add" as const, id: other.id, before: null, after: other }],
    };
    const side = revisionSide(revision);
    expect(side(`${withMemory}\n${renderedLine(other)}`)).toBe("with");
    expect(side(withMemory)).toBe("neither");
    expect(side(BASE)).toBe("without");
  });
});

describe("attempts", () => {
  const side = revisionSide(addRevision());
  const options = { side, targeted: new Set<string>() };

  it("an attempt runs from a task to its passing gate run, across continuations, counting turns and tokens", () => {
    const units = attemptsOf(trace(climb("T1", 2, { turns: 2 })), options);
    expect(units).toHaveLength(1);
    expect(units[0]).toMatchObject({ ok: true, turns: 6, tokens: 600, side: "without", from: 2 });
    expect(units[0]?.gateRuns?.map((g) => g.passed)).toEqual([false, false, true]);
  });

  it("one that never passes is red when its run ended; one still open at the journal's end is left out", () => {
    expect(attemptsOf(trace(climb("T1", 1, { pass: false })), options)).toMatchObject([{ ok: false }]);
    const open = [task("T1"), reply(), gate(false), continuation, reply()];
    expect(attemptsOf(trace(open), options)).toEqual([]);
  });

  it("a prompt change that puts the edit in force splits the attempt: the part after it is on the other side", () => {
    const events = [
      task("T1"),
      reply(),
      gate(false),
      continuation,
      reply(),
      gate(false),
      { type: "system_prompt", text: withMemory } as JournalBody,
      continuation,
      reply(),
      gate(true),
      end,
    ];
    const units = attemptsOf(trace(events), options);
    expect(units.map((u) => [u.side, u.ok, u.turns])).toEqual([
      ["without", false, 2],
      ["with", true, 1],
    ]);
  });

  it("counts repeats of the errors the edit targeted", () => {
    const targeted = new Set(["FileNotFoundError: [errno #] no such file or directory: 'data.json'"]);
    const events = [
      task("T1"),
      reply(),
      cell("open('data.json')"),
      output({ name: "FileNotFoundError", value: "[Errno 2] No such file or directory: 'data.json'" }),
      gate(true),
      end,
    ];
    expect(attemptsOf(trace(events), { side, targeted })[0]?.targeted).toBe(1);
  });
});

describe("cells", () => {
  it("marks failures, retries and the cells that used the entry", () => {
    const events = [
      task("T1"),
      reply(100, "reading it"),
      cell("open('data.json')"),
      output({ name: "FileNotFoundError", value: "nope" }),
      reply(100, "per [mem-abc123]"),
      cell("open('data.csv')"),
      output(),
    ];
    const cells = cellsOf(trace(events, withMemory), {
      side: revisionSide(addRevision()),
      targeted: new Set(),
      uses: (code, r) => `${code}${r}`.includes("mem-abc123"),
    });
    expect(cells.map((c) => [c.ok, c.retry, c.used, c.side])).toEqual([
      [false, false, false, "with"],
      [true, true, true, "with"],
    ]);
  });
});

const unit = (session: string, time: string, side: Unit["side"], ok: boolean, turns = 1): Unit => ({
  session,
  from: 1,
  to: 5,
  time,
  ok,
  turns,
  tokens: turns * 100,
  gateRuns: [{ n: 5, passed: ok }],
  targeted: 0,
  side,
});

describe("windows and judgements", () => {
  it("before: the last K without the edit that began before it; after: the first K with it", () => {
    const units = [
      unit("a", "2026-01-01", "without", true),
      unit("b", "2026-01-02", "without", true),
      unit("c", "2026-01-03", "without", true),
      unit("x", "2026-01-05", "without", false),
      unit("d", "2026-01-06", "with", false),
      unit("e", "2026-01-07", "with", false),
      unit("f", "2026-01-08", "neither", false),
      unit("g", "2026-01-09", "with", true),
    ];
    const { before, after } = windows(units, "2026-01-04", 2);
    expect(before.map((u) => u.session)).toEqual(["b", "c"]);
    expect(after.map((u) => u.session)).toEqual(["d", "e"]);
  });

  it("regressed when fewer attempts reach green, naming every gate run before and after", () => {
    const j = judgeAttempts(
      [unit("a", "1", "without", true), unit("b", "2", "without", true)],
      [unit("c", "3", "with", false), unit("d", "4", "with", false)],
    );
    expect(j.verdict).toBe("regressed");
    expect(j.final).toBe(false);
    expect(j.summary).toContain("green 2/2 → 0/2");
    expect(j.summary).toContain("gate runs before: a #5 pass; b #5 pass; after: c #5 fail; d #5 fail");
  });

  it("improved when turns to green drop by a quarter and at least one turn; neutral for small changes", () => {
    const before = [unit("a", "1", "without", true, 3), unit("b", "2", "without", true, 3)];
    expect(
      judgeAttempts(before, [unit("c", "3", "with", true, 1), unit("d", "4", "with", true, 1)]).verdict,
    ).toBe("improved");
    expect(
      judgeAttempts(before, [unit("c", "3", "with", true, 3), unit("d", "4", "with", true, 2)]).verdict,
    ).toBe("neutral");
    expect(
      judgeAttempts(before, [unit("c", "3", "with", true, 5), unit("d", "4", "with", true, 6)]).verdict,
    ).toBe("regressed");
  });

  it("pending until each side has enough attempts; final once the window after is full", () => {
    const before = [unit("a", "1", "without", true), unit("b", "2", "without", true)];
    expect(judgeAttempts(before, [unit("c", "3", "with", false)]).verdict).toBe("pending");
    const full = Array.from({ length: WINDOW.attempts }, (_, i) => unit(`c${i}`, `3${i}`, "with", true));
    expect(judgeAttempts(before, full)).toMatchObject({ verdict: "neutral", final: true });
  });

  it("without gates, the share of failed cells decides", () => {
    const cells = (ok: boolean[], side: Unit["side"]) =>
      ok.map((o, i) => ({ ...unit(`s${i}`, `${i}`, side, o), gateRuns: undefined }));
    const before = cells([true, false, false, true], "without");
    expect(judgeCells(before, cells([true, true, true, true], "with")).verdict).toBe("improved");
    expect(judgeCells(before, cells([false, false, false, false], "with")).verdict).toBe("regressed");
    expect(judgeCells(before, cells([true, true], "with")).verdict).toBe("pending");
  });
});

describe("evaluateVerdicts on a project", () => {
  function project() {
    const h = rig();
    const store = new HarnessStore(scopeLocation("project", { cwd: h.cwd, home: h.home }));
    return { ...h, store, log: new VerdictLog(store.location, h.home) };
  }

  it("reverts a regression with a revision naming the gate runs, and writes it once however often it runs", () => {
    const p = project();
    writeSession(p.home, p.cwd, "before01", BASE, climb("T", 0));
    writeSession(p.home, p.cwd, "before02", BASE, climb("T", 0));
    const { revision } = p.store.commit({
      intents: [
        {
          op: "add",
          kind: "memory",
          title: memory.title,
          content: memory.content,
          source: "user",
          id: memory.id,
          hypothesis: "fewer failed reads",
        },
      ],
      author: "user",
      reason: "test",
      now: new Date(tick()),
    });
    const entry = revision?.edits[0]?.after as Entry;
    const prompt = `${BASE}\n${renderedLine(entry)}`;
    writeSession(p.home, p.cwd, "after001", prompt, climb("T", 1, { pass: false }));

    const first = evaluateVerdicts({ cwd: p.cwd, home: p.home }, { apply: true });
    expect(first[0]?.judgement.verdict).toBe("pending");
    expect(p.store.revisions()).toHaveLength(1);

    writeSession(p.home, p.cwd, "after002", prompt, climb("T", 1, { pass: false }));
    const second = evaluateVerdicts({ cwd: p.cwd, home: p.home }, { apply: true });
    expect(second[0]).toMatchObject({ written: true, judgement: { verdict: "regressed" } });
    const undo = p.store.revisions().at(-1) as Revision;
    expect(undo.revert).toBe(revision?.rev);
    expect(undo.author).toBe("verdict");
    expect(undo.reason).toContain(`automatic revert of ${revision?.rev}`);
    expect(undo.reason).toMatch(
      /before: before01 #\d+ pass; before02 #\d+ pass; after: after001 #\d+ fail #\d+ fail; after002/,
    );
    expect(undo.verdict).toMatchObject({ rev: revision?.rev, verdict: "regressed", scope: "project" });
    expect(p.store.state().size).toBe(0);
    expect(p.log.records()).toHaveLength(1);
    expect(p.log.records()[0]).toMatchObject({ type: "verdict", verdict: "regressed", reverted: undo.rev });

    const third = evaluateVerdicts({ cwd: p.cwd, home: p.home }, { apply: true });
    expect(third[0]).toMatchObject({ written: false, reverted: undo.rev });
    expect(p.store.revisions()).toHaveLength(2);
    expect(p.log.records()).toHaveLength(1);
  });

  it("without gates, judges the cells that used the entry against the cells before it", () => {
    const p = project();
    const miss = { name: "FileNotFoundError", value: "[Errno 2] No such file or directory: 'data.json'" };
    const clumsy = [
      task("T"),
      reply(),
      cell("open('data.json')"),
      output(miss),
      reply(),
      cell("open('data.csv')"),
      output(),
    ];
    writeSession(p.home, p.cwd, "before01", BASE, clumsy);
    writeSession(p.home, p.cwd, "before02", BASE, clumsy);
    const { revision } = p.store.commit({
      intents: [
        {
          op: "add",
          kind: "memory",
          title: memory.title,
          content: memory.content,
          source: "user",
          id: memory.id,
        },
      ],
      author: "user",
      reason: "test",
      now: new Date(tick()),
    });
    const prompt = `${BASE}\n${renderedLine(revision?.edits[0]?.after as Entry)}`;
    const cited = [task("T"), reply(100, "per [mem-abc123]"), cell("open('data.csv')"), output()];
    // A session with the memory whose cells never cite it says nothing about it.
    writeSession(p.home, p.cwd, "after000", prompt, [task("T"), reply(), cell("print(1)"), output(miss)]);
    for (const id of ["after001", "after002", "after003", "after004"])
      writeSession(p.home, p.cwd, id, prompt, cited);
    const [judged] = evaluateVerdicts({ cwd: p.cwd, home: p.home }, { apply: true });
    expect(judged?.judgement).toMatchObject({ signal: "cells", verdict: "improved" });
    expect(judged?.judgement.summary).toContain("cells: failed 2/4 → 0/4, retries 2 → 0");
    expect(judged?.judgement.after.units.map((u) => u.session)).toEqual([
      "after001",
      "after002",
      "after003",
      "after004",
    ]);
  });

  it("marks an improvement, writes nothing with apply: false, and nothing twice", () => {
    const p = project();
    writeSession(p.home, p.cwd, "before01", BASE, climb("T", 2));
    writeSession(p.home, p.cwd, "before02", BASE, climb("T", 2));
    const { revision } = p.store.commit({
      intents: [
        {
          op: "add",
          kind: "memory",
          title: memory.title,
          content: memory.content,
          source: "user",
          id: memory.id,
        },
      ],
      author: "user",
      reason: "test",
      now: new Date(tick()),
    });
    const prompt = `${BASE}\n${renderedLine(revision?.edits[0]?.after as Entry)}`;
    writeSession(p.home, p.cwd, "after001", prompt, climb("T", 0));
    writeSession(p.home, p.cwd, "after002", prompt, climb("T", 0));
    const dry = evaluateVerdicts({ cwd: p.cwd, home: p.home }, { apply: false });
    expect(dry[0]?.judgement.verdict).toBe("improved");
    expect(p.log.records()).toEqual([]);
    evaluateVerdicts({ cwd: p.cwd, home: p.home }, { apply: true });
    evaluateVerdicts({ cwd: p.cwd, home: p.home }, { apply: true });
    expect(p.log.records().map((r) => r.type === "verdict" && r.verdict)).toEqual(["improved"]);
    expect(p.store.revisions()).toHaveLength(1);
  });
});
