// Sub-agents' streamed output since their last journaled step, so that a child's transcript opened
// mid-cell shows what its cell printed so far (the journal has it only when the cell ends).
//
// A child printing a line every 20 ms sends 50 deltas a second, and each was kept as an object until its
// cell ended (up to 2,000 per child). Consecutive deltas of one stream are now kept as one, with a bound
// on characters instead of on events, so a long cell's output is a few objects, not thousands.
import type { AgentEvent } from "../../agent/core/events.js";

type Delta = Extract<AgentEvent, { type: "cell_output_delta" | "text_delta" | "reasoning_delta" }>;

/** How much streamed text is kept per child: what a child view shows is the tail of it anyway. */
const CHILD_LIVE_CHARS = 256 * 1024;

interface Kept {
  deltas: Delta[];
  chars: number;
}

export class ChildLiveOutput {
  private readonly byAgent = new Map<string, Kept>();

  constructor(private readonly maxChars = CHILD_LIVE_CHARS) {}

  apply(event: AgentEvent): void {
    // Its parent reports a child finished (the root's children: with no agent id).
    if (event.type === "child_finished") this.byAgent.delete(event.id);
    const id = event.agent;
    if (!id) return;
    if (isDelta(event)) this.keep(id, event);
    else if (event.type === "cell_output" || event.type === "model_response") this.byAgent.delete(id);
    else if (event.type === "text_reset") this.dropText(id, event.turn);
  }

  /** The kept deltas of agent `id`, oldest first (a copy). */
  events(id: string): AgentEvent[] {
    return [...(this.byAgent.get(id)?.deltas ?? [])];
  }

  private keep(id: string, event: Delta): void {
    let kept = this.byAgent.get(id);
    if (!kept) {
      kept = { deltas: [], chars: 0 };
      this.byAgent.set(id, kept);
    }
    const last = kept.deltas.at(-1);
    const piece = textOf(event);
    if (last && sameStream(last, event)) kept.deltas[kept.deltas.length - 1] = joined(last, piece);
    else kept.deltas.push(event);
    kept.chars += piece.length;
    if (kept.chars > this.maxChars) this.trim(kept);
  }

  /** The model's text of `turn` was taken back (a retried stream): what it had sent is not shown. */
  private dropText(id: string, turn: number): void {
    const kept = this.byAgent.get(id);
    if (!kept) return;
    kept.deltas = kept.deltas.filter((d) => {
      const taken = d.type === "text_delta" && d.turn === turn;
      if (taken) kept.chars -= d.delta.length;
      return !taken;
    });
  }

  /** Drops the oldest text until the rest fits, cutting inside the oldest delta if needed. */
  private trim(kept: Kept): void {
    while (kept.chars > this.maxChars && kept.deltas.length > 0) {
      const first = kept.deltas[0] as Delta;
      const text = textOf(first);
      const over = kept.chars - this.maxChars;
      if (text.length <= over) {
        kept.deltas.shift();
        kept.chars -= text.length;
      } else {
        // Cut at a line break where there is one, so the kept output starts with a whole line.
        const cut = text.indexOf("\n", over);
        const from = cut >= 0 && cut < text.length - 1 ? cut + 1 : over;
        kept.deltas[0] = withText(first, text.slice(from));
        kept.chars -= from;
      }
    }
  }
}

/** Streamed text: a cell's output, the model's text or reasoning as they arrive. */
export function isDelta(event: AgentEvent): event is Delta & { agent?: string } {
  return (
    event.type === "cell_output_delta" || event.type === "text_delta" || event.type === "reasoning_delta"
  );
}

function textOf(event: Delta): string {
  return event.type === "cell_output_delta" ? event.text : event.delta;
}

function withText(event: Delta, text: string): Delta {
  return event.type === "cell_output_delta" ? { ...event, text } : { ...event, delta: text };
}

function joined(last: Delta, piece: string): Delta {
  return withText(last, textOf(last) + piece);
}

/** Deltas that continue each other: one cell's output, or one turn's text (or reasoning). */
function sameStream(a: Delta, b: Delta): boolean {
  if (a.type !== b.type) return false;
  if (a.type === "cell_output_delta") return a.callId === (b as typeof a).callId;
  return a.turn === (b as typeof a).turn;
}
