import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  JOURNAL_VERSION,
  Journal,
  type JournalBody,
  JournalFormatError,
  readJournal,
} from "../../src/session/index.js";
import { header, tempDir } from "./helpers.js";

const spent = { turns: 1, tokens: 30, elapsedMs: 1200, cost: 0.001 };

const bodies: JournalBody[] = [
  { type: "user", text: "count the lines" },
  { type: "kernel", event: "started", pid: 1234, detail: "python 3.12" },
  { type: "model_request", turn: 1, messages: 2 },
  {
    type: "model_response",
    turn: 1,
    text: "Let me look.",
    toolCalls: [{ id: "c1", name: "ipython", arguments: '{"code":"print(1)"}' }],
    usage: { inputTokens: 20, outputTokens: 10, cachedInputTokens: 0, cacheWriteTokens: 0, estimated: false },
    cost: 0.001,
    stopReason: "tool_calls",
    requestBytes: 900,
    attempts: 1,
    durationMs: 300,
  },
  { type: "cell", turn: 1, callId: "c1", code: "print(1)" },
  {
    type: "cell_output",
    turn: 1,
    callId: "c1",
    executionCount: 1,
    status: "ok",
    output: "1\n",
    outputChars: 2,
    truncated: false,
    imageFiles: [],
    durationMs: 5,
  },
  { type: "final", text: "There is 1 line.", spent },
];

function lines(path: string): string[] {
  return readFileSync(path, "utf8").split("\n").filter(Boolean);
}

describe("Journal", () => {
  it("round-trips a header and numbered events", () => {
    const dir = join(tempDir(), "abcd2345");
    const journal = Journal.create(dir, header());
    const returned = bodies.map((b) => journal.append(b));
    journal.close();

    expect(returned.map((e) => e.n)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const read = readJournal(journal.path);
    expect(read.truncatedTail).toBe(false);
    expect(read.header).toMatchObject({ type: "header", version: JOURNAL_VERSION, id: "abcd2345" });
    expect(read.events).toEqual(returned);
    expect(read.events.map((e) => e.type)).toEqual(bodies.map((b) => b.type));
    for (const e of read.events) expect(Number.isNaN(Date.parse(e.t))).toBe(false);
    expect(lines(journal.path)).toHaveLength(1 + bodies.length);
  });

  it("writes private files and dirs", () => {
    const dir = join(tempDir(), "s1");
    const journal = Journal.create(dir, header());
    const rel = journal.writeOutputFile("cell-1.txt", "full output");
    journal.close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(journal.outputsDir).mode & 0o777).toBe(0o700);
    expect(statSync(journal.path).mode & 0o777).toBe(0o600);
    expect(rel).toBe("outputs/cell-1.txt");
    expect(statSync(join(dir, rel)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, rel), "utf8")).toBe("full output");
    expect(() => journal.writeOutputFile("../escape.txt", "x")).toThrow();
  });

  it("refuses to overwrite an existing journal", () => {
    const dir = join(tempDir(), "s1");
    Journal.create(dir, header()).close();
    expect(() => Journal.create(dir, header())).toThrow();
  });

  it("has each event on disk as soon as append returns", () => {
    const journal = Journal.create(join(tempDir(), "s1"), header());
    for (const [i, body] of bodies.entries()) {
      journal.append(body);
      const onDisk = lines(journal.path);
      expect(onDisk).toHaveLength(i + 2);
      expect(JSON.parse(onDisk.at(-1)!)).toMatchObject({ n: i + 1, type: body.type });
    }
    journal.close();
  });

  it("repairs a half-written last line on open and continues the numbering", () => {
    const dir = join(tempDir(), "s1");
    const first = Journal.create(dir, header());
    for (const b of bodies.slice(0, 3)) first.append(b);
    first.close();
    // A crash in the middle of the fourth write.
    appendFileSync(first.path, '{"n":4,"t":"2025-01-01T00:00:01.000Z","type":"us');
    expect(readJournal(first.path)).toMatchObject({ truncatedTail: true });

    const reopened = Journal.open(dir);
    expect(reopened.repairedTail).toBe(true);
    expect(reopened.lastN).toBe(3);
    expect(reopened.header.id).toBe("abcd2345");
    expect(reopened.append({ type: "user", text: "again" }).n).toBe(4);
    reopened.close();

    const read = readJournal(first.path);
    expect(read.truncatedTail).toBe(false);
    expect(read.events.map((e) => e.n)).toEqual([1, 2, 3, 4]);
    expect(read.events.at(-1)).toMatchObject({ type: "user", text: "again" });
  });

  it("treats a terminated but garbled last line as torn too", () => {
    const dir = join(tempDir(), "s1");
    const first = Journal.create(dir, header());
    first.append(bodies[0]!);
    first.close();
    appendFileSync(first.path, "\0\0\0\0\n");
    const reopened = Journal.open(dir);
    expect(reopened.repairedTail).toBe(true);
    expect(reopened.append(bodies[1]!).n).toBe(2);
    reopened.close();
    expect(readJournal(first.path).events.map((e) => e.n)).toEqual([1, 2]);
  });

  it("opens a clean journal without repair", () => {
    const dir = join(tempDir(), "s1");
    Journal.create(dir, header()).close();
    const reopened = Journal.open(dir);
    expect(reopened.repairedTail).toBe(false);
    expect(reopened.append(bodies[0]!).n).toBe(1);
    reopened.close();
  });

  it("redacts secrets from events, the header and output files", () => {
    const secret = "sk-test-0123456789abcdef";
    const dir = join(tempDir(), "s1");
    const journal = Journal.create(
      dir,
      { ...header(), title: `use key ${secret}` },
      { secrets: [secret, "short"] },
    );
    const event = journal.append({
      ...(bodies[5] as Extract<JournalBody, { type: "cell_output" }>),
      output: `KEY=${secret}\nline two`,
    });
    journal.append({
      type: "model_response",
      turn: 2,
      text: "",
      toolCalls: [{ id: "c2", name: "ipython", arguments: JSON.stringify({ code: `k = "${secret}"` }) }],
      usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, cacheWriteTokens: 0, estimated: true },
      cost: null,
      stopReason: "tool_calls",
      requestBytes: 100,
      attempts: 1,
      durationMs: 1,
    });
    journal.append({ type: "user", text: "a short word stays" });
    journal.writeOutputFile("cell-1.txt", `full ${secret}`);
    journal.close();

    const text = readFileSync(journal.path, "utf8");
    expect(text).not.toContain(secret);
    expect(text).toContain("[REDACTED]");
    expect(text).toContain("short word");
    expect(event).toMatchObject({ output: "KEY=[REDACTED]\nline two" });
    expect(journal.redact(`x${secret}y`)).toBe("x[REDACTED]y");
    expect(readJournal(journal.path).events).toHaveLength(3);
    for (const f of readdirSync(journal.outputsDir)) {
      expect(readFileSync(join(journal.outputsDir, f), "utf8")).not.toContain(secret);
    }
  });

  it("refuses to append after close", () => {
    const journal = Journal.create(join(tempDir(), "s1"), header());
    journal.close();
    journal.close();
    expect(journal.closed).toBe(true);
    expect(() => journal.append(bodies[0]!)).toThrow(/closed/);
  });

  it("will not open a journal with a damaged header", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "journal.jsonl"), '{"type":"header","vers');
    expect(() => Journal.open(dir)).toThrow(JournalFormatError);
  });
});
