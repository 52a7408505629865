// What the person typed, kept per project directory so Up/Down and Ctrl-R reach last week's prompts.
// One JSON string per line in $RELM_HOME/history/<hash of the directory>.jsonl, user-only.
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../../config/dirs.js";

const KEEP = 1000;

export class InputHistory {
  private readonly path: string;
  private entries: string[] = [];

  constructor(home: string, cwd: string) {
    const dir = join(home, "history");
    this.path = join(dir, `${createHash("sha256").update(cwd).digest("hex").slice(0, 16)}.jsonl`);
    try {
      makeDirs(dir, 0o700);
      if (existsSync(this.path)) this.entries = parse(readFileSync(this.path, "utf8"));
    } catch {
      this.entries = [];
    }
  }

  /** Oldest first. */
  all(): string[] {
    return [...this.entries];
  }

  add(text: string): void {
    const trimmed = text.trim();
    if (trimmed === "" || this.entries.at(-1) === trimmed) return;
    this.entries.push(trimmed);
    try {
      appendFileSync(this.path, `${JSON.stringify(trimmed)}\n`, { mode: 0o600 });
      if (this.entries.length > KEEP * 2) {
        this.entries = this.entries.slice(-KEEP);
        writeFileSync(this.path, this.entries.map((e) => `${JSON.stringify(e)}\n`).join(""), { mode: 0o600 });
      }
    } catch {
      // History is a convenience: a read-only home must not stop the session.
    }
  }

  /** Newest first, those containing every word of the query (case-insensitive). */
  search(query: string): string[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const out: string[] = [];
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i] as string;
      const lower = e.toLowerCase();
      if (words.every((w) => lower.includes(w)) && !out.includes(e)) out.push(e);
    }
    return out;
  }
}

function parse(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const value = JSON.parse(line);
      if (typeof value === "string") out.push(value);
    } catch {
      // A torn last line after a crash: skip it.
    }
  }
  return out.slice(-KEEP);
}
