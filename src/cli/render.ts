import { describeSpend } from "../agent/budget.js";
import type { AgentEvent } from "../agent/events.js";
import { formatDuration } from "../config/duration.js";

export interface RenderOptions {
  color: boolean;
  /** Stream the model's text as it arrives (interactive); otherwise show it when the response completes. */
  streamText: boolean;
  /** Lines of code and of output shown per cell. */
  codeLines?: number;
  outputHead?: number;
  outputTail?: number;
}

type Style = (text: string) => string;

function styles(color: boolean): Record<"dim" | "bold" | "red" | "green" | "yellow" | "cyan", Style> {
  const wrap = (open: number, close: number): Style =>
    color ? (t) => `\u001b[${open}m${t}\u001b[${close}m` : (t) => t;
  return {
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

function clip(lines: string[], head: number, tail: number): string[] {
  if (lines.length <= head + tail + 1) return lines;
  return [...lines.slice(0, head), `… ${lines.length - head - tail} more lines`, ...lines.slice(-tail)];
}

/** A compact human view of the event stream: each cell, its output's head and tail, and the spend. */
export class ProgressRenderer {
  private readonly s: ReturnType<typeof styles>;
  private midLine = false;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly options: RenderOptions,
  ) {
    this.s = styles(options.color);
  }

  handle(event: AgentEvent): void {
    const s = this.s;
    switch (event.type) {
      case "text_delta":
        if (this.options.streamText) {
          this.out.write(event.delta);
          this.midLine = !event.delta.endsWith("\n");
        }
        return;
      case "text_reset":
        if (this.options.streamText && this.midLine) this.line("");
        if (this.options.streamText) this.line(s.yellow("↻ the response was cut off; retrying"));
        return;
      case "cell_output_delta":
        return;
      case "session":
        this.line(s.dim(`relm · session ${event.id} · ${event.model} via ${event.provider}`));
        return;
      case "variable":
        this.line(s.dim(`• ${event.name}: ${event.varType}, ${event.size}`));
        return;
      case "model_retry":
        this.line(
          s.yellow(
            `↻ model call failed (${event.reason}); retry ${event.attempt} in ${formatDuration(event.delayMs)}`,
          ),
        );
        return;
      case "model_response":
        if (!this.options.streamText && event.toolCalls.length > 0 && event.text.trim().length > 0) {
          this.line(s.dim(event.text.trim()));
        }
        if (this.options.streamText && this.midLine) this.line("");
        return;
      case "cell":
        this.renderCode(event.code);
        return;
      case "cell_output":
        this.renderOutput(event.output, event.status, event.durationMs, event.note);
        return;
      case "tool_error":
        this.line(s.red(`✗ ${event.message}`));
        return;
      case "kernel":
        if (event.event !== "started") this.line(s.yellow(`⚠ kernel ${event.event}: ${event.detail}`));
        return;
      case "model_error":
        this.line(s.red(`✗ model error: ${event.message}`));
        return;
      case "budget_stop":
        this.line(s.red(`■ ${event.message}`));
        return;
      case "final":
        this.line(s.dim(`✓ ${describeSpend(event.spent)}`));
        return;
      case "error":
        this.line(s.red(`✗ ${event.message}`));
        return;
      case "interrupted":
        this.line(s.yellow(`■ ${event.reason}`));
        return;
      default:
        return;
    }
  }

  private renderCode(code: string): void {
    const lines = code.replace(/\n+$/, "").split("\n");
    const max = this.options.codeLines ?? 8;
    const shown = lines.length > max ? [...lines.slice(0, max), `… +${lines.length - max} lines`] : lines;
    this.line(this.s.cyan("▸ ipython"));
    for (const l of shown) this.line(`  ${this.s.cyan("│")} ${l}`);
  }

  private renderOutput(output: string, status: string, durationMs: number, note?: string): void {
    const s = this.s;
    const text = output.replace(/\n+$/, "");
    if (text.length > 0) {
      const lines = clip(text.split("\n"), this.options.outputHead ?? 6, this.options.outputTail ?? 3);
      for (const l of lines)
        this.line(`  ${s.dim("│")} ${s.dim(l.length > 200 ? `${l.slice(0, 200)}…` : l)}`);
    }
    const mark =
      status === "ok" ? s.green("✓") : status === "error" ? s.red("✗ error") : s.yellow(`⚠ ${status}`);
    this.line(`  ${mark} ${s.dim(formatDuration(durationMs))}${note ? ` ${s.yellow(note)}` : ""}`);
  }

  private line(text: string): void {
    if (this.midLine) {
      this.out.write("\n");
      this.midLine = false;
    }
    this.out.write(`${text}\n`);
  }
}
