import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Journal, JournalFormatError, readHeaderAndTail, readJournal } from "../../src/session/index.js";
import { header, tempDir } from "./helpers.js";

function journalWith(count: number, text = (i: number) => `message ${i}`): Journal {
  const journal = Journal.create(join(tempDir(), "s1"), header());
  for (let i = 1; i <= count; i++) journal.append({ type: "user", text: text(i) });
  journal.close();
  return journal;
}

describe("readJournal", () => {
  it("names the file and line of a corrupt middle line", () => {
    const journal = journalWith(3);
    const lines = readFileSync(journal.path, "utf8").split("\n");
    lines[2] = "{not json";
    writeFileSync(journal.path, lines.join("\n"));
    try {
      readJournal(journal.path);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(JournalFormatError);
      expect((e as JournalFormatError).line).toBe(3);
      expect((e as Error).message).toContain(`${journal.path}:3`);
    }
    expect(() => Journal.open(journal.dir)).toThrow(JournalFormatError);
  });

  it("rejects an unknown major version", () => {
    const dir = tempDir();
    const path = join(dir, "journal.jsonl");
    writeFileSync(path, `${JSON.stringify({ ...header(), type: "header", version: 2 })}\n`);
    expect(() => readJournal(path)).toThrow(/unsupported journal version 2/);
  });

  it("skips and flags a half-written last line", () => {
    const journal = journalWith(2);
    const cleanEnd = readFileSync(journal.path).length;
    appendFileSync(journal.path, '{"n":3,"t":"x","type":"user","te');
    const read = readJournal(journal.path);
    expect(read.truncatedTail).toBe(true);
    expect(read.events.map((e) => e.n)).toEqual([1, 2]);
    expect(read.endOffset).toBe(cleanEnd);
  });
});

describe("readHeaderAndTail", () => {
  it("reads the header and the last events of a large journal", () => {
    const journal = journalWith(5000, (i) => `message ${i} ${"x".repeat(200)}`);
    const tail = readHeaderAndTail(journal.path);
    expect(tail.header.id).toBe("abcd2345");
    expect(tail.lastN).toBe(5000);
    expect(tail.size).toBeGreaterThan(1_000_000);
    expect(tail.events.length).toBeGreaterThan(10);
    expect(tail.events.length).toBeLessThan(5000);
    const ns = tail.events.map((e) => e.n);
    expect(ns).toEqual(Array.from({ length: ns.length }, (_, i) => 5001 - ns.length + i));
  });

  it("reaches back past a last line longer than the window, and past a torn tail", () => {
    const journal = journalWith(3, (i) => (i === 3 ? "y".repeat(200_000) : `m${i}`));
    appendFileSync(journal.path, '{"n":4,"t');
    const tail = readHeaderAndTail(journal.path, 1024);
    expect(tail.lastN).toBe(3);
    expect(tail.truncatedTail).toBe(true);
    expect(tail.events.at(-1)).toMatchObject({ text: "y".repeat(200_000) });
  });

  it("handles a journal with no events", () => {
    const journal = journalWith(0);
    expect(readHeaderAndTail(journal.path)).toMatchObject({ lastN: 0, events: [], truncatedTail: false });
  });
});
