import { join } from "node:path";
// The transcript of one agent: the event stream turned into blocks. The root session's view and a
// child's read-only view are the same class, filtered by agent id.
import { Container } from "@mariozechner/pi-tui";
import type { AgentEvent } from "../../agent/core/events.js";
import { eventLines } from "../../commands/event-lines.js";
import { firstLine } from "../../config/text.js";
import { reasoningText } from "../../llm/thinking.js";
import type { SpendRecord } from "../../session/types.js";
import { spendLine } from "../format.js";
import type { Theme } from "../theme.js";
import { ApprovalLines } from "./approval-line.js";
import { AssistantBlock, NoticeBlock, UserBlock } from "./blocks.js";
import { CellBlock, type CellView } from "./cell-block.js";
import { FileEditBlock } from "./file-edit-block.js";
import { ThinkingBlock } from "./thinking-block.js";
import { TurnSpend } from "./turn-spend.js";

export class Transcript extends Container {
  private assistant: AssistantBlock | undefined;
  /** The reasoning of the answer streaming now. */
  private thinking: ThinkingBlock | undefined;
  private readonly cells = new Map<string, CellBlock>();
  private readonly running = new Set<CellBlock>();
  /** Children started in a row are summed up in one line instead of one line each. */
  private spawnSummary: { block: NoticeBlock; labels: string[] } | undefined;
  private finishSummary:
    | { block: NoticeBlock; done: number; failed: string[]; cancelled: number }
    | undefined;
  sessionDir: string | undefined;
  /** The turn's own spend for the line that ends it (tui/transcript/turn-spend.ts). */
  private readonly turnSpend = new TurnSpend();
  private ownSpend: SpendRecord | undefined;
  /** Sub-agents' labels by id, for the lines that say how they ended. */
  private readonly labels = new Map<string, string>();
  /** What each approval request asked, for the line its answer leaves. */
  private readonly approvals = new ApprovalLines();
  /** The person's messages by journal number: a rewind drops everything from one of them on. */
  private readonly userBlocks = new Map<number, UserBlock>();

  constructor(
    private readonly theme: Theme,
    private readonly view: CellView,
    /** Only events of this agent (undefined: the session's root agent). */
    private readonly agent: string | undefined = undefined,
  ) {
    super();
  }

  /** The newest ended cell's full output file (absolute), when the UI holds only part of that output. */
  lastFullOutput(): string | undefined {
    const cells = [...this.cells.values()];
    for (let i = cells.length - 1; i >= 0; i--) {
      const file = cells[i]?.fullOutputFile;
      if (file) return this.sessionDir ? join(this.sessionDir, file) : file;
    }
    return undefined;
  }

  /** Cells still running (their clocks tick). */
  get hasRunningCells(): boolean {
    return this.running.size > 0;
  }

  /** Adds a line of the UI's own (command results, hints). */
  note(text: string, gap = false): void {
    this.breakRuns();
    this.addChild(new NoticeBlock(text, gap));
  }

  /** Handles one event; returns whether the view changed. */
  apply(event: AgentEvent): boolean {
    if (event.agent !== this.agent) return false;
    const t = this.theme;
    this.ownSpend = this.turnSpend.apply(event);
    switch (event.type) {
      case "session":
        this.sessionDir = event.dir;
        return false;
      case "user": {
        this.endStream();
        this.breakRuns();
        const block = new UserBlock(event.text, t);
        this.userBlocks.set(event.n, block);
        this.addChild(block);
        return true;
      }
      case "rewind":
        this.rewind(event.to, event.text, event.files);
        return true;
      case "message":
        if (event.to !== "self") return false;
        this.endStream();
        this.breakRuns();
        this.addChild(new UserBlock(event.text, t, event.from === "user" ? undefined : event.from));
        return true;
      case "variable":
        this.note(t.dim(`• ${event.name}: ${event.varType}, ${event.size}`));
        return true;
      case "text_delta":
        this.currentAssistant().append(event.delta);
        return true;
      case "reasoning_delta":
        this.currentThinking().append(event.delta);
        return true;
      case "text_reset":
        this.thinking?.reset();
        this.currentAssistant().set("");
        this.note(t.warn("↻ the response was cut off; retrying"));
        return true;
      case "model_response":
        this.endThinking(reasoningText(event.reasoning));
        if (event.text.trim() !== "") this.currentAssistant().set(event.text);
        this.assistant = undefined;
        return true;
      case "file_edit": {
        // The kernel runs one cell at a time: the change is the latest running cell's. The toolkit's
        // message can reach the host after the cell's end, so the cell just ended takes it too while
        // nothing has come after it.
        const last = this.children.at(-1);
        const cell = [...this.running].at(-1) ?? (last instanceof CellBlock ? last : undefined);
        if (cell) cell.addEdit(new FileEditBlock(event, t, this.view));
        else {
          this.breakRuns();
          this.addChild(new FileEditBlock(event, t, this.view, true));
        }
        return true;
      }
      case "cell": {
        this.breakRuns();
        this.assistant = undefined;
        this.thinking = undefined;
        const block = new CellBlock(
          event.callId,
          event.code,
          Date.parse(event.t),
          t,
          this.view,
          this.sessionDir,
        );
        this.cells.set(event.callId, block);
        this.running.add(block);
        this.addChild(block);
        return true;
      }
      case "cell_output_delta": {
        const block = this.cells.get(event.callId);
        if (!block?.running) return false;
        block.appendOutput(event.text);
        return true;
      }
      case "cell_output": {
        const block = this.cells.get(event.callId);
        if (!block) return false;
        block.finish(event);
        this.running.delete(block);
        return true;
      }
      case "child_spawned":
        this.labels.set(event.id, event.label ?? event.name);
        this.noteSpawn(event.label ?? event.name);
        return true;
      case "child_finished":
        this.noteFinish(event.status, event.label ?? this.labels.get(event.id) ?? event.name, event.reason);
        return true;
      default:
        return this.applyNotice(event);
    }
  }

  /**
   * The conversation went back to before the message numbered `to`: it and all after it leave the
   * view (a replay from the journal shows the same), and a line says what happened.
   */
  private rewind(to: number, text: string, files: boolean): void {
    const from = this.userBlocks.get(to);
    const at = from ? this.children.indexOf(from) : -1;
    if (at >= 0) {
      const gone = new Set(this.children.splice(at));
      for (const [id, cell] of this.cells)
        if (gone.has(cell)) {
          this.cells.delete(id);
          this.running.delete(cell);
        }
      for (const n of [...this.userBlocks.keys()]) if (n >= to) this.userBlocks.delete(n);
    }
    this.assistant = undefined;
    this.thinking = undefined;
    const t = this.theme;
    this.note(
      `${t.accent(`↶ rewound to before “${firstLine(text.replace(/\s+/g, " "), 60)}”`)}${t.dim(
        `${files ? " with the files" : ""} · the kernel keeps its variables`,
      )}`,
    );
  }

  /**
   * Stops the clock of every running cell: the host went away mid-cell, or the turn ended (an error
   * before the cell ran, say) with no output for it.
   */
  abandonRunning(at = Date.now()): void {
    for (const cell of this.running) cell.stop(at);
    this.running.clear();
  }

  /**
   * The kinds apply()'s switch does not take, each one line (the UI's own wording here, else the one
   * line mode shares, eventLines). Apart from apply() because these lines must not break a run of
   * sub-agent lines, where apply()'s blocks do (breakRuns); a kind is in one of the two, never both.
   */
  private applyNotice(event: AgentEvent): boolean {
    const t = this.theme;
    const own = this.ownSpend;
    const line = ((): string | undefined => {
      switch (event.type) {
        case "tool_skipped":
          return t.dim(`· a cell was not run: ${event.reason}`);
        case "mcp":
          // A server's start is the UI's own line; its failure is said as line mode says it (below).
          if (event.event === "started")
            return t.dim(`· MCP server ${event.server} started (${event.detail})`);
          break;
        case "final":
          return t.dim(`✓ ${spendLine(own ?? event.spent)}`);
        case "autonomy_end":
          return (event.outcome === "gates passed" || event.outcome === "done" ? t.ok : t.warn)(
            `■ ${firstLine(event.report, 200)}`,
          );
        case "goal_done":
          return t.ok(`◎ goal done${event.note ? `: ${event.note}` : ""}`);
        case "resumed": {
          const parts = ["↺ resumed in a new process"];
          if (event.restored.length > 0) parts.push(`restored ${event.restored.join(", ")}`);
          if (event.notRestored.length > 0)
            parts.push(`not restored: ${event.notRestored.map((v) => v.name).join(", ")}`);
          if (event.uncertain.length > 0) parts.push(event.uncertain.join("; "));
          return t.dim(parts.join(" · "));
        }
        case "approval_request":
          this.approvals.request(event);
          return undefined; // a dialog asks it (tui/dialogs/approval-dialog.ts)
        case "approval_answer":
          return this.approvals.answer(event, t);
        case "llm_call":
          return t.dim(`· llm(): ${event.prompts} prompt${event.prompts === 1 ? "" : "s"} to ${event.model}`);
        case "submit":
          return t.dim("· submitted a result");
        case "truncated":
          return t.warn(
            event.action === "continued"
              ? `↻ the answer was cut off at ${event.maxOutputTokens ?? "the"} tokens (${event.by === "budget" ? "token budget" : "model limit"}); asking the model to continue`
              : `■ the answer was cut off (${event.by === "budget" ? "token budget" : "model limit"})${event.action === "gave_up" ? " and is unfinished" : ""}`,
          );
        case "undo":
          return t.ok(describeUndo(event));
        case "learn_mode":
          return t.accent(`✎ learning ${event.on ? "on" : "off"}`);
        case "model":
          return event.model ? t.accent(`⇄ model: ${event.model}`) : undefined;
      }
      return eventLines(event, t)?.join("\n");
    })();
    if (line === undefined) return false;
    if (event.type === "interrupted") this.endStream();
    // The turn is over: a cell it never got an end for will not get one.
    if (event.type === "error" || event.type === "final" || event.type === "interrupted")
      this.abandonRunning(Date.parse(event.t));
    // Not note(): a notice between sub-agents finishing must not split their summary line. The line
    // that ends a turn stands apart from the answer above it.
    this.addChild(new NoticeBlock(line, event.type === "final"));
    return true;
  }

  /**
   * An answer that never got its model_response (Esc, a failed stream) is over once anything else comes:
   * what streamed stays where it is, and the next answer gets a block of its own under its message.
   */
  private endStream(): void {
    this.thinking?.finish();
    this.thinking = undefined;
    this.assistant = undefined;
  }

  private currentThinking(): ThinkingBlock {
    if (!this.thinking) {
      this.breakRuns();
      this.thinking = new ThinkingBlock(this.theme, this.view);
      this.addChild(this.thinking);
    }
    return this.thinking;
  }

  /**
   * An answer is complete: its streamed reasoning becomes the one-line summary. A replayed answer (no
   * stream) gets its block from the journaled reasoning, above the answer's text.
   */
  private endThinking(journaled: string): void {
    const block = this.thinking;
    this.thinking = undefined;
    if (block) {
      block.finish(journaled);
      return;
    }
    if (journaled.trim() === "") return;
    const fresh = new ThinkingBlock(this.theme, this.view);
    fresh.finish(journaled);
    const at = this.assistant ? this.children.indexOf(this.assistant) : -1;
    if (at >= 0) this.children.splice(at, 0, fresh);
    else {
      this.breakRuns();
      this.addChild(fresh);
    }
  }

  private currentAssistant(): AssistantBlock {
    if (!this.assistant) {
      this.breakRuns();
      this.assistant = new AssistantBlock(this.theme);
      this.addChild(this.assistant);
    }
    return this.assistant;
  }

  private breakRuns(): void {
    this.spawnSummary = undefined;
    this.finishSummary = undefined;
  }

  private noteSpawn(label: string): void {
    this.finishSummary = undefined;
    const t = this.theme;
    if (!this.spawnSummary) {
      this.spawnSummary = { block: new NoticeBlock(""), labels: [] };
      this.addChild(this.spawnSummary.block);
    }
    const s = this.spawnSummary;
    s.labels.push(label);
    const names =
      s.labels.length <= 4
        ? s.labels.join(", ")
        : `${s.labels.slice(0, 3).join(", ")} and ${s.labels.length - 3} more`;
    s.block.setText(
      t.accent(`⇢ ${s.labels.length === 1 ? "sub-agent" : `${s.labels.length} sub-agents`}: ${names}`),
    );
  }

  private noteFinish(status: string, label: string, reason?: string): void {
    this.spawnSummary = undefined;
    const t = this.theme;
    if (!this.finishSummary) {
      this.finishSummary = { block: new NoticeBlock(""), done: 0, failed: [], cancelled: 0 };
      this.addChild(this.finishSummary.block);
    }
    const s = this.finishSummary;
    if (status === "done") s.done++;
    else if (status === "cancelled") s.cancelled++;
    else s.failed.push(`${label}${reason ? ` (${firstLine(reason, 60)})` : ""}`);
    const parts = [];
    if (s.done > 0) parts.push(t.ok(`${s.done} done`));
    if (s.cancelled > 0) parts.push(t.warn(`${s.cancelled} cancelled`));
    if (s.failed.length > 0) parts.push(t.error(`${s.failed.length} failed: ${s.failed.join(", ")}`));
    s.block.setText(`${t.accent("⇠ sub-agents:")} ${parts.join(", ")}`);
  }
}

/** One line for an `undo` event: what was put back (the first few files) and how to go further. */
function describeUndo(event: { turn: number; changed: string[]; removed: string[] }): string {
  const files = [...event.changed, ...event.removed];
  const named = files.length > 0 ? ` (${files.slice(0, 5).join(", ")}${files.length > 5 ? ", …" : ""})` : "";
  return (
    `↶ files as before turn ${event.turn}: ${event.changed.length} restored, ${event.removed.length} removed` +
    `${named} · /undo again steps further back`
  );
}
