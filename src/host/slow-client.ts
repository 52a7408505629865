// What a session host does for a client that reads its events more slowly than the session makes them
// (a terminal busy drawing a fast stream, a stopped `relm logs -f`): the host must neither hold an
// unbounded queue for it nor stop reading its requests (an interrupt must get through).
import type { Socket } from "node:net";

/** Unread bytes past which the model's streamed text (text_delta, reasoning_delta) is not sent. */
export const SKIP_DELTAS_BYTES = 1 << 20;
/** Unread bytes past which the client is disconnected (it may attach again and replay the journal). */
export const DROP_CLIENT_BYTES = 64 << 20;

type Verdict = "send" | "skip" | "drop";

/**
 * Per client: which model streams it is missing pieces of. Once a piece is skipped, the rest of that
 * answer's pieces are skipped too, so the client never shows text with a hole in it; the answer's
 * model_response (which carries the whole text) or a text_reset (the client starts it over) ends that.
 */
export class Backlog {
  private readonly skipping = new Set<string>();

  constructor(private readonly socket: Socket) {}

  /** What to do with one live event for this client. */
  judge(event: unknown): Verdict {
    const e = event as { type?: unknown; agent?: unknown } | null;
    const type = typeof e?.type === "string" ? e.type : "";
    const stream = `${typeof e?.agent === "string" ? e.agent : ""}`;
    const unread = this.socket.writableLength;
    if (type === "text_delta" || type === "reasoning_delta") {
      if (this.skipping.has(stream)) return "skip";
      if (unread >= SKIP_DELTAS_BYTES) {
        this.skipping.add(stream);
        return "skip";
      }
      return "send";
    }
    if (type === "model_response" || type === "text_reset") this.skipping.delete(stream);
    return unread >= DROP_CLIENT_BYTES ? "drop" : "send";
  }
}
