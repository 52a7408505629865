// What a session host does for a client that reads its events more slowly than the session makes them
// (a terminal busy drawing a fast stream, a stopped `relm logs -f`): the host must neither hold an
// unbounded queue for it nor stop reading its requests (an interrupt must get through).
import type { Socket } from "node:net";

/** Unread bytes past which the model's streamed text (text_delta, reasoning_delta) is not sent. */
export const SKIP_DELTAS_BYTES = 1 << 20;
/**
 * Unread bytes past which the client is disconnected (it may attach again and replay the journal). The
 * point where a connection's requests stop being read (rpc.ts PAUSE_READING_BYTES) is derived from it.
 */
export const DROP_CLIENT_BYTES = 64 << 20;

type Verdict = "send" | "skip" | "drop";

/**
 * Per client: which model streams it is missing pieces of. Once a piece is skipped, the rest of that
 * answer's pieces are skipped too, so the client never shows text with a hole in it; at the answer's
 * model_response the client is sent what it missed as one text_delta first (front ends that take the
 * streamed text as the answer, line mode and ACP, get all of it), then the response. A text_reset (the
 * client starts the answer over) also ends the skipping.
 */
export class Backlog {
  private readonly skipping = new Set<string>();
  /** Characters of each stream's answer sent so far (text_delta), to know what a skipped one missed. */
  private readonly sent = new Map<string, number>();

  constructor(private readonly socket: Socket) {}

  /** What to do with one live event for this client; `first`: an event to send before it. */
  judge(event: unknown): { verdict: Verdict; first?: unknown } {
    const e = event as {
      type?: unknown;
      agent?: unknown;
      delta?: unknown;
      text?: unknown;
      turn?: unknown;
    } | null;
    const type = typeof e?.type === "string" ? e.type : "";
    const stream = typeof e?.agent === "string" ? e.agent : "";
    const unread = this.socket.writableLength;
    if (type === "text_delta" || type === "reasoning_delta") {
      if (!this.skipping.has(stream) && unread >= SKIP_DELTAS_BYTES) this.skipping.add(stream);
      if (this.skipping.has(stream)) return { verdict: "skip" };
      if (type === "text_delta" && typeof e?.delta === "string")
        this.sent.set(stream, (this.sent.get(stream) ?? 0) + e.delta.length);
      return { verdict: "send" };
    }
    let first: unknown;
    if (type === "model_response" || type === "text_reset") {
      const sent = this.sent.get(stream) ?? 0;
      if (type === "model_response" && this.skipping.has(stream) && typeof e?.text === "string") {
        const missed = e.text.slice(sent);
        if (missed !== "")
          first = { type: "text_delta", turn: e.turn, delta: missed, ...(stream ? { agent: stream } : {}) };
      }
      this.skipping.delete(stream);
      this.sent.delete(stream);
    }
    return { verdict: unread >= DROP_CLIENT_BYTES ? "drop" : "send", first };
  }
}
