// Every event a session host publishes (to the UI, ACP, attach) and `relm run --json` prints, the live
// ones too (streamed answer, cell output as it comes):
// they are redacted of the session's secrets as the journal's copies are, a secret cut between two
// streamed pieces included.
import type { AgentEvent, EventSink } from "../agent/core/events.js";
import { Redactor } from "../session/redact.js";
import { StreamRedactor } from "../session/redact-stream.js";

type Delta = Extract<AgentEvent, { type: "text_delta" | "reasoning_delta" | "cell_output_delta" }>;

function isDelta(event: AgentEvent): event is Delta {
  return (
    event.type === "text_delta" || event.type === "reasoning_delta" || event.type === "cell_output_delta"
  );
}

const SEP = "\u0000";

/** One stream per agent, kind and turn (or cell): its pieces join up, other streams' do not. */
function streamOf(event: Delta): string {
  const at = event.type === "cell_output_delta" ? event.callId : String(event.turn);
  return [event.agent ?? "", event.type, at].join(SEP);
}

function withText(event: Delta, text: string): Delta {
  return event.type === "cell_output_delta" ? { ...event, text } : { ...event, delta: text };
}

export class RedactedEvents {
  private redactor?: Redactor;
  private stream?: StreamRedactor;
  /** The last piece of each stream with text held back, to say the rest in the same shape. */
  private readonly last = new Map<string, Delta>();

  constructor(private readonly write: (event: AgentEvent) => void) {}

  /**
   * From now on, events are redacted of `secrets` (the session's own list, which may still grow).
   * Events before it are the session's start: journaled ones are redacted when written.
   */
  use(secrets: readonly string[]): void {
    this.redactor = new Redactor(secrets);
    this.stream = new StreamRedactor(this.redactor);
  }

  readonly sink: EventSink = (event) => {
    if (!this.redactor || !this.stream) {
      this.write(event);
      return;
    }
    if (isDelta(event)) {
      const key = streamOf(event);
      const shown = this.stream.push(key, event.type === "cell_output_delta" ? event.text : event.delta);
      if (this.stream.holds(key)) this.last.set(key, event);
      else this.last.delete(key);
      if (shown !== "") this.write(withText(event, shown));
      return;
    }
    // Whatever this agent does next ends its streams: what they held was no secret after all.
    this.end((key) => key.startsWith(`${event.agent ?? ""}${SEP}`));
    this.write(this.redactor.value(event));
  };

  /** Says what the streams `which` selects still hold (all of them, at the end of the run). */
  end(which: (stream: string) => boolean = () => true): void {
    for (const [key, text] of this.stream?.flush(which) ?? []) {
      const event = this.last.get(key);
      this.last.delete(key);
      if (event && text !== "") this.write(withText(event, text));
    }
  }
}
