import type { Journal } from "../../session/index.js";
import type { JournalBody, JournalEvent } from "../../session/types.js";
import type { AgentEvent, EventSink } from "./events.js";

/**
 * Where one agent writes: its journal, and the event stream the front end reads. What is journaled is
 * also shown; live events (streamed text, cell output) are only shown.
 */
export class AgentLog {
  constructor(
    readonly journal: Journal,
    /** The front end's stream as given (events of a child carry its id); `emit` is the guarded way in. */
    readonly sink: EventSink,
  ) {}

  record(body: JournalBody): JournalEvent {
    const event = this.journal.append(body);
    this.emit(event);
    return event;
  }

  /** `text` as the journal would write it (secrets redacted). */
  redact(text: string): string {
    return this.journal.redact(text);
  }

  emit(event: AgentEvent): void {
    try {
      this.sink(event);
    } catch {
      // A broken front end must not stop the agent; the journal already has the event.
    }
  }
}
