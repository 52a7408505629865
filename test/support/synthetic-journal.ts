// Root session journals written the way relm writes them, for in-process tests of verdicts: a header and
// numbered events with increasing times (no model, no kernel).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JournalBody } from "../../src/session/types.js";

export const BASE = "You are relm.";

let clock = Date.parse("2026-03-01T00:00:00.000Z");
/** The next minute of a clock shared by every synthetic journal and revision. */
export function tick(): string {
  clock += 60_000;
  return new Date(clock).toISOString();
}

const reply = (tokens = 100): JournalBody => ({
  type: "model_response",
  turn: 1,
  text: "",
  toolCalls: [],
  usage: {
    inputTokens: tokens,
    outputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    estimated: false,
  },
  cost: null,
  stopReason: "stop",
  requestBytes: 10,
  attempts: 1,
  durationMs: 1,
});

const gate = (passed: boolean): JournalBody => ({
  type: "gate_run",
  passed,
  results: [
    {
      command: "make check",
      exitCode: passed ? 0 : 1,
      passed,
      timedOut: false,
      output: "boom",
      durationMs: 1,
    },
  ],
  skipped: [],
  sameFailures: passed ? 0 : 1,
});

/** A gated task that needs `fails` failing gate runs, one model call per try, then passes (or not). */
export function climb(name: string, fails: number, pass = true): JournalBody[] {
  const tries: JournalBody[] = [];
  for (let i = 0; i <= fails; i++) {
    if (i > 0) tries.push({ type: "user", text: "[relm: autonomous mode] The work is not done yet" });
    tries.push(reply());
    tries.push(gate(i === fails && pass));
  }
  return [
    { type: "user", text: name },
    ...tries,
    { type: "autonomy_end", outcome: "gates passed", report: "" },
  ];
}

/** A task without gates: one model call and a cell. */
export function chat(name: string): JournalBody[] {
  return [
    { type: "user", text: name },
    reply(),
    { type: "cell", turn: 1, callId: "c", code: "print(1)" },
    {
      type: "cell_output",
      turn: 1,
      callId: "c",
      executionCount: 1,
      status: "ok",
      output: "1\n",
      outputChars: 2,
      truncated: false,
      imageFiles: [],
      durationMs: 1,
    },
  ];
}

/** Writes `$home/sessions/ID/journal.jsonl`: the header, the system prompt, then `events`. */
export function writeSession(
  home: string,
  cwd: string,
  id: string,
  prompt: string,
  events: JournalBody[],
): string {
  const dir = join(home, "sessions", id);
  mkdirSync(dir, { recursive: true });
  const header = {
    type: "header",
    version: 1,
    id,
    created: tick(),
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
  return dir;
}
