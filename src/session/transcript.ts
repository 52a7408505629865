// A session as a flat list of presentation blocks; the md, html and ipynb exports all render from this.
import { formatDuration } from "../config/duration.js";
import { costWord } from "../config/money.js";
import type { JournalEvent, JournalEventOf, JournalHeader, SpendRecord } from "./types.js";

export type CellResult = JournalEventOf<"cell_output">;

export type Block =
  | { kind: "title"; text: string }
  | { kind: "meta"; items: [string, string][] }
  | { kind: "heading"; text: string }
  /** Prose written by the user or the model: markdown, kept as is (html renders only the model's). */
  | { kind: "text"; text: string; from: "user" | "model" }
  /** relm's own remarks: stops, errors, kernel restarts. Plain text. */
  | { kind: "note"; text: string }
  | { kind: "cell"; code: string; result?: CellResult };

/** The spend with the time and cost in the front ends' words (formatDuration, costWord). */
function formatSpend(spent: SpendRecord): string {
  return `${spent.turns} turns, ${spent.tokens.toLocaleString("en-US")} tokens, ${formatDuration(spent.elapsedMs)}, ${costWord(spent.cost)}`;
}

/** What the model saw of a cell's output, as notes: status, truncation and where the rest is. */
export function cellNotes(result: CellResult): string[] {
  const notes: string[] = [];
  if (result.status === "error") {
    notes.push(
      result.error ? `Error: ${result.error.name}: ${result.error.value}` : "The cell raised an error.",
    );
  } else if (result.status === "timeout") {
    notes.push("The cell timed out.");
  } else if (result.status === "crashed") {
    notes.push("The kernel crashed during this cell.");
  }
  if (result.truncated) {
    const where = result.fullOutputFile ? `; full output in ${result.fullOutputFile}` : "";
    notes.push(`Output truncated (${result.outputChars.toLocaleString("en-US")} chars in full)${where}.`);
  }
  if (result.note) notes.push(result.note);
  return notes;
}

const PREVIEW_CHARS = 500;

function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}

/** Spend when the session never reached a final answer or budget stop (crash, interrupt, still running). */
export function spendFromResponses(header: JournalHeader, events: JournalEvent[]): SpendRecord {
  let turns = 0;
  let tokens = 0;
  let cost: number | null = 0;
  for (const e of events) {
    if (e.type !== "model_response") continue;
    turns++;
    tokens += e.usage.inputTokens + e.usage.outputTokens;
    cost = cost === null || e.cost === null ? null : cost + e.cost;
  }
  const last = events.at(-1);
  const elapsedMs = last ? Math.max(0, Date.parse(last.t) - Date.parse(header.created)) || 0 : 0;
  return { turns, tokens, elapsedMs, cost };
}

export function buildTranscript(header: JournalHeader, events: JournalEvent[]): Block[] {
  const blocks: Block[] = [{ kind: "title", text: header.title.trim() || `relm session ${header.id}` }];
  const meta: [string, string][] = [["Session", header.id]];
  if (header.parent) meta.push(["Parent", header.parent]);
  meta.push(
    ["Created", header.created],
    ["Directory", header.cwd],
    ["Model", `${header.provider} / ${header.model}`],
    ["relm", header.relm],
  );
  blocks.push({ kind: "meta", items: meta });

  const cells = new Map<string, Extract<Block, { kind: "cell" }>>();
  // The model's last reply usually is the final answer too; it is shown once, under "Final answer".
  let lastReply: { index: number; text: string } | null = null;
  let spent: SpendRecord | null = null;
  let lastCell: Extract<Block, { kind: "cell" }> | undefined;
  // "Kernel started" goes right before the first cell that kernel ran, however the start and the cell
  // interleaved in the journal (a kernel starts ahead of time, or lazily once the cell asks for it).
  let pendingStart: Block | undefined;
  const note = (text: string) => blocks.push({ kind: "note", text });
  const insertBefore = (target: Block, block: Block) => {
    const at = blocks.indexOf(target);
    blocks.splice(at, 0, block);
    if (lastReply && lastReply.index >= at) lastReply.index++;
  };

  // Each message's heading by journal number: a rewind removes the blocks from one of them on.
  const messages = new Map<number, Block>();
  const rewound = (e: JournalEventOf<"rewind">) => {
    const heading = messages.get(e.to);
    const at = heading ? blocks.indexOf(heading) : -1;
    if (at < 0) return;
    const gone = new Set(blocks.splice(at));
    for (const [n, block] of messages) if (gone.has(block)) messages.delete(n);
    for (const [id, block] of cells) if (gone.has(block)) cells.delete(id);
    if (lastCell && gone.has(lastCell)) lastCell = undefined;
    if (lastReply && lastReply.index >= at) lastReply = null;
    const turns = [...gone].filter((b) => b.kind === "heading" && b.text === "User").length;
    note(
      `Rewound: ${turns} message(s) from "${e.text.split("\n")[0]?.slice(0, 60)}" on, and what followed, were removed ` +
        `from the conversation${e.files ? " and the files put back as they were then" : ""} (the kernel kept its variables; ` +
        "the full history is in the journal: relm export --format jsonl).",
    );
  };

  // One dispatch in two parts, each event kind in one of them: the kinds here place blocks (headings,
  // cells, a kernel start moved before its cell, a final answer that replaces the last reply); every
  // other kind is one note of its own, worded by noteOf (a pure function of the event, no state).
  for (const e of events) {
    switch (e.type) {
      case "user": {
        const heading: Block = { kind: "heading", text: "User" };
        messages.set(e.n, heading);
        blocks.push(heading, { kind: "text", text: e.text, from: "user" });
        break;
      }
      case "rewind":
        rewound(e);
        break;
      case "model_response":
        if (e.text.trim()) {
          lastReply = { index: blocks.length, text: e.text };
          blocks.push(
            { kind: "heading", text: `Assistant (turn ${e.turn})` },
            { kind: "text", text: e.text, from: "model" },
          );
        } else if (e.toolCalls.length > 0) {
          // A turn that only ran code still has its own heading, not the previous turn's (or "User").
          blocks.push({ kind: "heading", text: `Assistant (turn ${e.turn})` });
        }
        break;
      case "cell": {
        const block: Extract<Block, { kind: "cell" }> = { kind: "cell", code: e.code };
        cells.set(e.callId, block);
        if (pendingStart) blocks.push(pendingStart);
        pendingStart = undefined;
        blocks.push(block);
        lastCell = block;
        break;
      }
      case "cell_output": {
        const block = cells.get(e.callId);
        if (block && !block.result) block.result = e;
        else blocks.push({ kind: "cell", code: "", result: e });
        break;
      }
      case "kernel": {
        const said: Block = {
          kind: "note",
          text: `Kernel ${e.event} (pid ${e.pid})${e.detail ? `: ${e.detail}` : ""}`,
        };
        if (e.event !== "started") blocks.push(said);
        // Started for the cell waiting on it: before that cell; else before the next cell.
        else if (lastCell && !lastCell.result) insertBefore(lastCell, said);
        else pendingStart = said;
        break;
      }
      case "budget_stop":
        spent = e.spent;
        blocks.push(
          { kind: "heading", text: "Budget stop" },
          { kind: "note", text: `${e.budget} budget reached (limit ${e.limit}): ${e.message}` },
        );
        break;
      case "final":
        spent = e.spent;
        if (lastReply && lastReply.text.trim() === e.text.trim()) blocks.splice(lastReply.index, 2);
        lastReply = null;
        blocks.push({ kind: "heading", text: "Final answer" }, { kind: "text", text: e.text, from: "model" });
        break;
      default: {
        const text = noteOf(e);
        if (text !== undefined) note(text);
      }
    }
  }
  if (pendingStart) blocks.push(pendingStart);
  blocks.push(
    { kind: "heading", text: "Spend" },
    { kind: "note", text: formatSpend(spent ?? spendFromResponses(header, events)) },
  );
  return blocks;
}

/**
 * The note that stands for an event shown as one line of relm's, if it is one. Only kinds that
 * buildTranscript's switch does not take reach here (a case for one of those would never run).
 */
function noteOf(e: JournalEvent): string | undefined {
  switch (e.type) {
    case "variable":
      return `Variable ${e.name}: ${e.varType}, ${e.size}`;
    case "model_error":
      return `Model error on turn ${e.turn} (${e.kind}${e.status ? ` ${e.status}` : ""}): ${e.message}`;
    case "tool_error":
      return `Tool call failed: ${e.message}`;
    case "warning":
      return `Warning: ${e.message}`;
    case "submit":
      return `Result submitted: ${preview(e.value)}`;
    case "child_spawned":
      return `Sub-agent ${e.name} (${e.id}) started: ${e.task}`;
    case "child_finished":
      return (
        `Sub-agent ${e.name} (${e.id}) ${e.status}` +
        (e.reason ? `: ${e.reason}` : "") +
        (e.result ? ` → ${e.result}` : "") +
        ` [${formatSpend(e.spent)}]; its transcript: children/${e.id}/`
      );
    case "message":
      return `Message from ${e.from} to ${e.to}: ${e.text}`;
    case "file_edit":
      return (
        (e.action === "move" ? `File moved: ${e.from} → ${e.path}` : `File ${e.action}: ${e.path}`) +
        ` (+${e.added} -${e.removed})`
      );
    case "error":
      return `Error: ${e.message}`;
    case "interrupted":
      return `Interrupted: ${e.reason}`;
    default:
      // model_request / model_retry are bookkeeping; unknown (newer) types are skipped.
      return undefined;
  }
}
