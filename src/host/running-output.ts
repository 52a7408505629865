// What running cells have printed so far, as the host published it (redacted), so that a client
// attaching mid-cell (the UI, `relm attach`, `relm logs -f`, a sub-agent's page in `relm web`) gets it
// after the journal's replay: the journal has a cell's code, and its output only once the cell ends.
// The session's own cell and each sub-agent's running cell are kept apart. Bounded: past `head`
// characters only the newest `tail` are kept, with the kernel's marker of a skip between them; a
// sub-agent's bounds are smaller, since a thousand of them can run at once.
import type { AgentEvent } from "../agent/core/events.js";
import type { ChildAfter } from "./server.js";

const ROOT_BOUNDS = { head: 20_000, tail: 100_000 };
const CHILD_BOUNDS = { head: 4_000, tail: 16_000 };
/** Events after which an agent has no running cell. */
const ENDS = new Set(["cell_output", "tool_error", "tool_skipped", "final", "error", "interrupted"]);

interface Running {
  callId: string;
  /** The `cell` event's number in its agent's journal: a client that replays from after it has seen the output. */
  n: number;
  head: string;
  tail: string;
  skipped: number;
  bounds: { head: number; tail: number };
}

export class RunningOutput {
  /** By agent: "" for the session's own, else the sub-agent's id. */
  private readonly cells = new Map<string, Running>();

  /** Notes one published event. */
  note(event: AgentEvent): void {
    const agent = event.agent ?? "";
    if (event.type === "cell") {
      const n = (event as { n?: unknown }).n;
      if (typeof n !== "number") this.cells.delete(agent);
      else {
        const bounds = agent ? CHILD_BOUNDS : ROOT_BOUNDS;
        this.cells.set(agent, { callId: event.callId, n, head: "", tail: "", skipped: 0, bounds });
      }
      return;
    }
    const cell = this.cells.get(agent);
    if (!cell) return;
    if (event.type === "cell_output_delta") {
      if (event.callId === cell.callId) add(cell, event.text);
    } else if (ENDS.has(event.type)) this.cells.delete(agent);
  }

  /**
   * After a replay of the journal from `after`: the session's running cell's output so far, if its cell
   * was replayed; with `child`, that sub-agent's too, if its page has its journal only up to `child.after`.
   */
  replay(after: number, emit: (event: unknown) => void, child?: ChildAfter): void {
    const own = this.cells.get("");
    if (own && own.n > after) emitSoFar(own, emit);
    const sub = child ? this.cells.get(child.id) : undefined;
    if (sub && child && sub.n > child.after) emitSoFar(sub, emit, child.id);
  }
}

function emitSoFar(cell: Running, emit: (event: unknown) => void, agent?: string): void {
  if (cell.head.length + cell.tail.length === 0) return;
  const marker = cell.skipped
    ? `${cell.head.endsWith("\n") ? "" : "\n"}[relm: ${cell.skipped.toLocaleString("en-US")} characters skipped in the live view; all of the output: the kernel's _out]\n`
    : "";
  const text = cell.head + marker + cell.tail;
  emit({ type: "cell_output_delta", callId: cell.callId, text, ...(agent ? { agent } : {}) });
}

function add(cell: Running, text: string): void {
  const { head, tail } = cell.bounds;
  if (cell.head.length < head) {
    const room = head - cell.head.length;
    cell.head += text.slice(0, room);
    text = text.slice(room);
  }
  if (!text) return;
  cell.tail += text;
  if (cell.tail.length > tail * 1.5) {
    // Trim in batches, at a line's start, so the kept text is whole lines after the marker.
    let cut = cell.tail.length - tail;
    const newline = cell.tail.indexOf("\n", cut);
    if (newline >= 0) cut = newline + 1;
    cell.skipped += cut;
    cell.tail = cell.tail.slice(cut);
  }
}
