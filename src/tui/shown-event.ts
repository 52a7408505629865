// What the terminal UI takes of an event: its text was written by a model or a kernel (answers, code,
// plan steps, sub-agents' names and tasks, messages, a goal's progress, file names), and every panel that
// draws some of it would otherwise pass its escape sequences to the terminal (an OSC 52 sets the
// clipboard). So every string of an event is made terminalText as it arrives, once, for all of them: the
// transcript's blocks draw it as they get it, and an event read back instead (a sub-agent's journal, in
// its view) is passed through here too.
// Not a cell's output: its carriage returns redraw progress bars (output-buffer.ts), and it is cleaned
// line by line where it is drawn (cell-block.ts sanitize). Nor an approval's words: those are shown as
// visible escapes (commands/approval-words.ts), so that a person sees exactly what is asked.
import type { AgentEvent } from "../agent/core/events.js";
import { terminalText } from "../config/text.js";

function cleaned(value: unknown): unknown {
  if (typeof value === "string") return terminalText(value);
  if (Array.isArray(value)) {
    const out = value.map(cleaned);
    return out.some((v, i) => v !== value[i]) ? out : value;
  }
  if (value !== null && typeof value === "object") {
    let out: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(value)) {
      const c = cleaned(v);
      if (c !== v) {
        out ??= { ...(value as Record<string, unknown>) };
        out[k] = c;
      }
    }
    return out ?? value;
  }
  return value;
}

/** `event` with its text made safe to draw (the same object when nothing needed it). */
export function shownEvent(event: AgentEvent): AgentEvent {
  if (event.type === "cell_output" || event.type === "cell_output_delta") return event;
  if (event.type === "approval_request") return event;
  return cleaned(event) as AgentEvent;
}
