// What the session's running cell has printed so far, as the host published it (redacted), so that a
// client attaching mid-cell (the UI, `relm attach`, `relm logs -f`) gets it after the journal's replay:
// the journal has the cell's code, and its output only once the cell ends. Bounded: past HEAD characters
// only the newest TAIL are kept, with the kernel's marker of a skip between them.
import type { AgentEvent } from "../agent/core/events.js";

const HEAD = 20_000;
const TAIL = 100_000;

interface Running {
  callId: string;
  /** The `cell` event's journal number: a client that replays from after it has seen the output. */
  n: number;
  head: string;
  tail: string;
  skipped: number;
}

export class RunningOutput {
  private cell: Running | undefined;

  /** Notes one published event. */
  note(event: AgentEvent): void {
    if (event.agent) return;
    if (event.type === "cell") {
      const n = (event as { n?: unknown }).n;
      this.cell =
        typeof n === "number" ? { callId: event.callId, n, head: "", tail: "", skipped: 0 } : undefined;
      return;
    }
    const cell = this.cell;
    if (!cell) return;
    if (event.type === "cell_output" && event.callId === cell.callId) this.cell = undefined;
    else if (event.type === "cell_output_delta" && event.callId === cell.callId) add(cell, event.text);
  }

  /** After a replay of the journal from `after`: the running cell's output so far, if it was replayed. */
  replay(after: number, emit: (event: unknown) => void): void {
    const cell = this.cell;
    if (!cell || cell.n <= after || cell.head.length + cell.tail.length === 0) return;
    const marker = cell.skipped
      ? `${cell.head.endsWith("\n") ? "" : "\n"}[relm: ${cell.skipped.toLocaleString("en-US")} characters skipped in the live view; all of the output: the kernel's _out]\n`
      : "";
    emit({ type: "cell_output_delta", callId: cell.callId, text: cell.head + marker + cell.tail });
  }
}

function add(cell: Running, text: string): void {
  if (cell.head.length < HEAD) {
    const room = HEAD - cell.head.length;
    cell.head += text.slice(0, room);
    text = text.slice(room);
  }
  if (!text) return;
  cell.tail += text;
  if (cell.tail.length > TAIL * 1.5) {
    // Trim in batches, at a line's start, so the kept text is whole lines after the marker.
    let cut = cell.tail.length - TAIL;
    const newline = cell.tail.indexOf("\n", cut);
    if (newline >= 0) cut = newline + 1;
    cell.skipped += cut;
    cell.tail = cell.tail.slice(cut);
  }
}
