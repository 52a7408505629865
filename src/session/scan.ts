// Byte-level reading of journal.jsonl, shared by the readers and by Journal.open's crash repair.
import { readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { isRecord, parseJson } from "../config/records.js";
import { JournalFormatError } from "./errors.js";
import { JOURNAL_VERSION, type JournalEvent, type JournalHeader } from "./types.js";

export const TAIL_BYTES = 64 * 1024;
const NL = 0x0a;
const CHUNK = 1 << 20;

/**
 * Calls `each` with every whole line in the bytes [from, to) of the file, read a megabyte at a time
 * (`to` Infinity: up to its end). A last piece without its newline (a line still being written, or a
 * torn tail) is not a line yet and is left out.
 */
export function forEachLine(fd: number, from: number, to: number, each: (line: string) => void): void {
  // A chunk can end inside a multi-byte character: the decoder holds it for the next one.
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.allocUnsafe(CHUNK);
  let carry = "";
  for (let position = from; position < to; ) {
    const read = readSync(fd, buffer, 0, Math.min(CHUNK, to - position), position);
    if (read === 0) break;
    position += read;
    const lines = (carry + decoder.write(buffer.subarray(0, read))).split("\n");
    carry = lines.pop() ?? "";
    for (const line of lines) each(line);
  }
}

/**
 * Calls `each` with the offset just past every newline in the bytes [from, to) of the file (`to`
 * Infinity: up to its end), read a megabyte at a time; returns the offset the reading stopped at.
 */
export function forEachLineEnd(fd: number, from: number, to: number, each: (end: number) => void): number {
  const buffer = Buffer.allocUnsafe(CHUNK);
  let position = from;
  while (position < to) {
    const read = readSync(fd, buffer, 0, Math.min(CHUNK, to - position), position);
    if (read === 0) break;
    for (let i = buffer.indexOf(NL); i !== -1 && i < read; i = buffer.indexOf(NL, i + 1))
      each(position + i + 1);
    position += read;
  }
  return position;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}

function parseHeader(text: string, file: string): JournalHeader {
  const value = parseJson(text);
  if (!isRecord(value) || value.type !== "header") {
    throw new JournalFormatError(file, 1, "first line is not a journal header", 0);
  }
  const version = value.version;
  if (typeof version !== "number" || !Number.isFinite(version)) {
    throw new JournalFormatError(file, 1, "journal header has no version", 0);
  }
  // Minor versions only add fields; a different major version may mean anything.
  if (Math.trunc(version) !== JOURNAL_VERSION) {
    throw new JournalFormatError(
      file,
      1,
      `unsupported journal version ${version} (this relm reads version ${JOURNAL_VERSION})`,
      0,
      "version",
    );
  }
  if (typeof value.id !== "string") throw new JournalFormatError(file, 1, "journal header has no id", 0);
  return value as unknown as JournalHeader;
}

/** Returns the event, or why the line is not one. */
function parseEvent(text: string): JournalEvent | string {
  const value = parseJson(text);
  if (value === undefined) return "invalid JSON";
  if (!isRecord(value) || typeof value.type !== "string" || !Number.isInteger(value.n)) {
    return "not a journal event (needs a string `type` and an integer `n`)";
  }
  return value as unknown as JournalEvent;
}

/** The journal's header, and `end`: the byte offset just past its newline. */
export function scanHeader(fd: number, size: number, file: string): { header: JournalHeader; end: number } {
  let want = Math.min(size, 4096);
  for (;;) {
    const buf = readAt(fd, 0, want);
    const nl = buf.indexOf(NL);
    if (nl >= 0) return { header: parseHeader(buf.toString("utf8", 0, nl), file), end: nl + 1 };
    if (want >= size) {
      throw new JournalFormatError(
        file,
        1,
        size === 0 ? "empty file (no header)" : "incomplete header line",
        0,
      );
    }
    want = Math.min(size, want * 4);
  }
}

export interface EventScan {
  events: JournalEvent[];
  /** The last line was half-written (no newline, or not valid JSON) and was skipped. */
  truncatedTail: boolean;
  /** Byte offset just past the last good line: where a repair truncates to, and where a follower resumes. */
  endOffset: number;
}

/**
 * Parses the event lines in [from, size). With `bytes` finite only the last `bytes` (grown when that window
 * holds no whole event) are read, so a listing of many sessions does not read whole journals. Only the final
 * line may be damaged (that is what a crash mid-write leaves); damage anywhere else throws.
 */
export function scanEvents(
  fd: number,
  size: number,
  from: number,
  file: string,
  bytes = Infinity,
): EventScan {
  let want = bytes;
  for (;;) {
    const start = Math.max(from, size - want);
    const fromStart = start === from;
    // One byte before the window tells whether the window begins on a line boundary.
    const readFrom = fromStart ? start : start - 1;
    const buf = readAt(fd, readFrom, size - readFrom);
    let first = 0;
    if (!fromStart) {
      const nl = buf.indexOf(NL);
      first = nl < 0 ? buf.length : nl + 1;
    }
    const lastNl = buf.lastIndexOf(NL);
    const completeEnd = lastNl >= first ? lastNl + 1 : first;
    let truncatedTail = completeEnd < buf.length;
    let endOffset = readFrom + completeEnd;
    const events: JournalEvent[] = [];

    const lines: [number, number][] = [];
    for (let pos = first; pos < completeEnd; ) {
      const nl = buf.indexOf(NL, pos);
      lines.push([pos, nl]);
      pos = nl + 1;
    }
    for (let i = 0; i < lines.length; i++) {
      const [lineStart, lineEnd] = lines[i]!;
      const text = buf.toString("utf8", lineStart, lineEnd);
      if (text.trim() === "") continue;
      const parsed = parseEvent(text);
      if (typeof parsed !== "string") {
        events.push(parsed);
        continue;
      }
      // A terminated but unparsable final line is still a torn write (e.g. zero-filled blocks after power loss).
      if (i === lines.length - 1 && !truncatedTail) {
        truncatedTail = true;
        endOffset = readFrom + lineStart;
        break;
      }
      const lineNo = fromStart ? 2 + i : undefined;
      throw new JournalFormatError(file, lineNo, parsed, readFrom + lineStart);
    }
    if (events.length > 0 || fromStart) return { events, truncatedTail, endOffset };
    want *= 4;
  }
}
