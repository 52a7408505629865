import { describeSpend } from "../agent/budget/budget.js";
import type { AgentEvent } from "../agent/core/events.js";
import { eventLines } from "../commands/event-lines.js";
import type { Paint } from "../commands/types.js";
import { formatDuration } from "../config/duration.js";
import { printable, terminalText } from "../config/text.js";
import { reasoningText } from "../llm/thinking.js";

interface RenderOptions {
  color: boolean;
  /** Stream the model's text as it arrives (interactive); otherwise show it when the response completes. */
  streamText: boolean;
  /** Print the final answer's text (views of a journal, where nothing else prints it). */
  printFinal?: boolean;
  /**
   * Print a running cell's output as it streams (views that follow a live host: logs -f, attach);
   * its end then adds only how it ended.
   */
  liveOutput?: boolean;
  /**
   * Show the messages each turn answers (the person's, a schedule's tick, another agent's), as the
   * terminal UI's transcript does: views of a journal (logs, attach), where nobody typed them here.
   */
  showMessages?: boolean;
}

/** Lines of a message shown in a journal view. */
const MESSAGE_LINES = 6;

/** Lines of code, and of output's head and tail, shown per cell. */
const CODE_LINES = 8;
const OUTPUT_HEAD = 6;
const OUTPUT_TAIL = 3;

function styles(color: boolean): Paint {
  const wrap = (open: number, close: number) =>
    color ? (t: string) => `\u001b[${open}m${t}\u001b[${close}m` : (t: string) => t;
  return {
    dim: wrap(2, 22),
    error: wrap(31, 39),
    ok: wrap(32, 39),
    warn: wrap(33, 39),
    accent: wrap(36, 39),
  };
}

// The codes styles() writes: the only escape sequences a printed line keeps (safeLine).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the codes themselves
const OWN_STYLES = /(\u001b\[(?:2|22|31|32|33|36|39)m)/;

/**
 * A line as it goes to the terminal. Most of what it shows was written by a kernel or a model (code,
 * output, answers, names, a goal's progress), so everything but this renderer's own colours is made
 * terminalText: no cursor movement, no blanked line, no OSC 52 clipboard write from a cell.
 */
function safeLine(text: string): string {
  return text
    .split(OWN_STYLES)
    .map((piece, i) => (i % 2 === 1 ? piece : terminalText(piece)))
    .join("");
}

function firstLine(text: string, max = 100): string {
  const start = text.trimStart();
  const end = start.indexOf("\n");
  const line = (end < 0 ? start.slice(0, max + 1) : start.slice(0, Math.min(end, max + 1))).trimEnd();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Characters of one code or output line shown; a cell's 10 MB literal is not echoed. */
const LINE_CHARS = 200;

function clipLine(line: string): string {
  return line.length > LINE_CHARS
    ? `${line.slice(0, LINE_CHARS)}… (+${line.length - LINE_CHARS} chars)`
    : line;
}

/** The first `max` lines of `text` and how many it has, without splitting all of a huge text. */
function headLines(text: string, max: number): { lines: string[]; total: number } {
  const lines: string[] = [];
  let total = 0;
  let start = 0;
  for (;;) {
    const end = text.indexOf("\n", start);
    total++;
    if (lines.length < max) lines.push(text.slice(start, end < 0 ? text.length : end));
    if (end < 0) return { lines, total };
    start = end + 1;
  }
}

function clip(lines: string[], head: number, tail: number): string[] {
  if (lines.length <= head + tail + 1) return lines;
  return [...lines.slice(0, head), `… ${lines.length - head - tail} more lines`, ...lines.slice(-tail)];
}

/** A compact human view of the event stream: each cell, its output's head and tail, and the spend. */
export class ProgressRenderer {
  private readonly s: ReturnType<typeof styles>;
  private midLine = false;
  /** The turn whose reasoning has had its one line (reasoning itself is not printed). */
  private thoughtTurn: number | undefined;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly options: RenderOptions,
  ) {
    this.s = styles(options.color);
  }

  handle(event: AgentEvent): void {
    const s = this.s;
    // A sub-agent's work is indented under the agent that started it, one short line per step.
    const who = event.agent ? `${s.dim(`  ${this.names.get(event.agent) ?? event.agent} │`)} ` : "";
    if (event.type === "child_spawned") {
      this.names.set(event.id, event.name);
      this.line(`${who}${s.accent(`⇢ sub-agent ${event.name} (${event.id}): ${firstLine(event.task)}`)}`);
      return;
    }
    if (event.type === "child_finished") {
      this.renderChildEnd(event, who);
      return;
    }
    if (event.agent) {
      this.handleChild(event, who);
      return;
    }
    switch (event.type) {
      case "text_delta":
        if (this.options.streamText) {
          this.out.write(terminalText(event.delta));
          this.midLine = !event.delta.endsWith("\n");
        }
        return;
      case "text_reset":
        if (this.options.streamText && this.midLine) this.line("");
        if (this.options.streamText) this.line(s.warn("↻ the response was cut off; retrying"));
        return;
      case "cell_output_delta":
        if (this.options.liveOutput) this.streamOutput(event.callId, event.text);
        return;
      case "reasoning_delta":
        if (this.thoughtTurn !== event.turn) this.line(s.dim("✻ thinking…"));
        this.thoughtTurn = event.turn;
        return;
      case "session":
        this.line(s.dim(`relm · session ${event.id} · ${event.model} via ${event.provider}`));
        return;
      case "user":
        if (this.options.showMessages) this.renderMessage("›", event.text);
        return;
      case "message":
        // One that came during a turn (read at its boundary); those this agent sent are not its input.
        if (this.options.showMessages && event.to === "self")
          this.renderMessage(`✉ ${event.from}:`, event.text);
        return;
      case "variable":
        this.line(s.dim(`• ${event.name}: ${event.varType}, ${event.size}`));
        return;
      case "model_response": {
        // A replayed (or unstreamed) answer's reasoning: its first line, once.
        const thought = this.thoughtTurn === event.turn ? "" : reasoningText(event.reasoning).trim();
        if (thought) this.line(s.dim(`✻ thought · ${clipLine(thought.split("\n")[0] ?? "")}`));
        this.thoughtTurn = undefined;
        if (!this.options.streamText && event.toolCalls.length > 0 && event.text.trim().length > 0) {
          this.line(s.dim(event.text.trim()));
        }
        if (this.options.streamText && this.midLine) this.line("");
        return;
      }
      case "cell":
        this.renderCode(event.code);
        return;
      case "cell_output": {
        const live = this.live?.callId === event.callId;
        if (live) this.endStream();
        this.renderOutput(live ? "" : event.output, event.status, event.durationMs, event.note);
        return;
      }
      case "truncated": {
        const cap =
          event.maxOutputTokens === undefined ? "its output limit" : `${event.maxOutputTokens} tokens`;
        const next =
          event.action === "continued"
            ? "asking the model to continue"
            : event.action === "stopped"
              ? "all that was left of --max-tokens"
              : "not reported as done";
        this.line(s.warn(`⚠ the answer was cut off at ${cap}; ${next}`));
        return;
      }
      case "final":
        if (this.options.printFinal) this.line(event.text);
        this.line(s.dim(`✓ ${describeSpend(event.spent)}`));
        return;
      case "approval_request":
        // Made visible, not left out: a person may answer it from what this line shows.
        this.line(
          s.warn(
            `? request [${event.id}] ${event.kind} ${printable(event.subject)} — ${printable(event.reason)}`,
          ),
        );
        return;
      case "approval_answer":
        this.line(
          event.withdrawn
            ? s.warn(`■ request [${event.id}] ${event.note ?? "withdrawn"}`)
            : event.allow
              ? s.ok(`✓ request [${event.id}] granted (${event.scope}, by ${event.by})`)
              : s.error(
                  `✗ request [${event.id}] denied by ${event.by}${event.note ? `: ${event.note}` : ""}`,
                ),
        );
        return;
      case "autonomy_end":
        this.line(
          (event.outcome === "gates passed" || event.outcome === "done" ? s.ok : s.warn)(
            `■ ${event.report.split("\n")[0]}`,
          ),
        );
        return;
      case "model":
        this.line(s.accent(`⇄ model: ${event.model} via ${event.provider}`));
        return;
      case "undo":
        this.line(
          s.warn(
            `↶ files put back to before turn ${event.turn} (${event.changed.length} restored, ${event.removed.length} removed)`,
          ),
        );
        return;
      case "rewind":
        this.line(
          s.warn(
            `↶ rewound to before "${event.text.split("\n")[0]?.slice(0, 60)}"${event.files ? " with the files" : ""} · the kernel keeps its variables`,
          ),
        );
        return;
      case "file_edit": {
        // The diff itself stays in the journal (relm logs --json, exports); one line says what changed.
        const what =
          event.action === "move"
            ? `moved ${printable(event.from ?? "")} → ${printable(event.path)}`
            : `${event.action} ${printable(event.path)}`;
        this.line(s.dim(`✎ ${what} (+${event.added} -${event.removed})`));
        return;
      }
      default:
        for (const line of eventLines(event, s) ?? []) this.line(line);
        return;
    }
  }

  private readonly names = new Map<string, string>();

  /** A sub-agent's step, after `who` (its name, indented). */
  private handleChild(event: AgentEvent, who: string): void {
    const s = this.s;
    switch (event.type) {
      case "cell":
        this.line(`${who}${s.accent("▸")} ${firstLine(event.code)}`);
        return;
      case "cell_output": {
        const mark = event.status === "ok" ? s.ok("✓") : s.error(`✗ ${event.status}`);
        this.line(`${who}  ${mark} ${s.dim(formatDuration(event.durationMs))}`);
        return;
      }
      case "model_error":
      case "error":
        this.line(`${who}${s.error(`✗ ${event.message}`)}`);
        return;
      case "budget_stop":
        this.line(`${who}${s.error(`■ ${event.message}`)}`);
        return;
      case "warning":
        // A kernel waiting in a cluster's queue, say: without it the child looks hung.
        this.line(`${who}${s.warn(`⚠ ${event.message}`)}`);
        return;
      default:
        return;
    }
  }

  private renderChildEnd(event: Extract<AgentEvent, { type: "child_finished" }>, prefix: string): void {
    const s = this.s;
    const mark = event.status === "done" ? s.ok("⇠") : s.error("⇠");
    const detail = event.status === "done" ? firstLine(event.result ?? "") : (event.reason ?? "");
    this.line(
      `${prefix}${mark} ${event.name} ${event.status}${detail ? `: ${detail}` : ""} ${s.dim(`(${describeSpend(event.spent)})`)}`,
    );
  }

  private renderMessage(mark: string, text: string): void {
    const { lines, total } = headLines(text.replace(/\n+$/, ""), MESSAGE_LINES);
    const [first = "", ...rest] = lines.map(clipLine);
    this.line(`${this.s.accent(mark)} ${first}`);
    for (const l of rest) this.line(`  ${l}`);
    if (total > MESSAGE_LINES) this.line(this.s.dim(`  … +${total - MESSAGE_LINES} lines`));
  }

  private renderCode(code: string): void {
    let end = code.length;
    while (end > 0 && code.charCodeAt(end - 1) === 10) end--;
    const { lines, total } = headLines(code.slice(0, end), CODE_LINES);
    const shown = lines.map(clipLine);
    if (total > CODE_LINES) shown.push(`… +${total - CODE_LINES} lines`);
    this.line(this.s.accent("▸ ipython"));
    for (const l of shown) this.line(`  ${this.s.accent("│")} ${l}`);
  }

  private renderOutput(output: string, status: string, durationMs: number, note?: string): void {
    const s = this.s;
    const text = output.replace(/\n+$/, "");
    if (text.length > 0) {
      const lines = clip(text.split("\n"), OUTPUT_HEAD, OUTPUT_TAIL);
      for (const l of lines) this.line(`  ${s.dim("│")} ${s.dim(clipLine(l))}`);
    }
    const mark =
      status === "ok" ? s.ok("✓") : status === "error" ? s.error("✗ error") : s.warn(`⚠ ${status}`);
    this.line(`  ${mark} ${s.dim(formatDuration(durationMs))}${note ? ` ${s.warn(note)}` : ""}`);
  }

  /** The cell whose output is streaming, and its unfinished last line. */
  private live: { callId: string; partial: string } | undefined;

  private streamOutput(callId: string, text: string): void {
    if (this.live?.callId !== callId) this.live = { callId, partial: "" };
    const pieces = (this.live.partial + text).split("\n");
    this.live.partial = pieces.pop() ?? "";
    for (const l of pieces) this.line(`  ${this.s.dim("│")} ${clipLine(l.replace(/\r$/, ""))}`);
  }

  private endStream(): void {
    const rest = this.live?.partial ?? "";
    this.live = undefined;
    if (rest !== "") this.line(`  ${this.s.dim("│")} ${clipLine(rest)}`);
  }

  private line(text: string): void {
    if (this.midLine) {
      this.out.write("\n");
      this.midLine = false;
    }
    this.out.write(`${safeLine(text)}\n`);
  }
}
