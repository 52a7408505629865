// The live panel of the agent tree: one line per sub-agent (indented by depth) with its status, what it
// is doing, how long it has run and what it has spent. Focused (ctrl+t or /agents), it selects a child
// to open, message or cancel.
import { type Component, Key, matchesKey, truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";
import { formatDuration } from "../../config/duration.js";
import { costWord, formatTokens } from "../format.js";
import type { Theme } from "../theme.js";
import { type AgentNode, type AgentStatus, type AgentsModel, isEnded } from "./agents-model.js";

const MARKS: Record<AgentStatus, string> = {
  starting: "○",
  thinking: "◐",
  running: "▶",
  waiting: "⋯",
  done: "✓",
  failed: "✗",
  cancelled: "■",
};

export interface PanelActions {
  open(node: AgentNode): void;
  message(node: AgentNode): void;
  cancel(node: AgentNode): void;
  close(): void;
}

export class AgentPanel implements Component {
  focused = false;
  /** Shown even when nothing runs (the person asked for it with /agents). */
  pinned = false;
  private selected = 0;
  private scroll = 0;

  constructor(
    private readonly model: AgentsModel,
    private readonly theme: Theme,
    private readonly actions: PanelActions,
    private readonly maxRows: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  get visible(): boolean {
    return this.pinned || this.focused || this.model.running() > 0;
  }

  invalidate(): void {}

  handleInput(data: string): void {
    const rows = this.rows();
    if (matchesKey(data, Key.up)) this.selected = Math.max(0, this.selected - 1);
    else if (matchesKey(data, Key.down)) this.selected = Math.min(rows.length - 1, this.selected + 1);
    else if (matchesKey(data, Key.escape) || matchesKey(data, Key.ctrl("t"))) this.actions.close();
    else {
      const node = rows[this.selected]?.node;
      if (!node) return;
      if (matchesKey(data, Key.enter)) this.actions.open(node);
      else if (data === "m") this.actions.message(node);
      else if (data === "c" || data === "x" || matchesKey(data, Key.delete)) this.actions.cancel(node);
    }
  }

  private rows(): { node: AgentNode; depth: number }[] {
    const all = this.model.flatten();
    if (this.focused || this.pinned) return all;
    // Unfocused, show what is at work; the finished are counted in the header.
    return all.filter((r) => !isEnded(r.node));
  }

  render(width: number): string[] {
    if (!this.visible) return [];
    const t = this.theme;
    const rows = this.rows();
    const counts = this.model.counts();
    const working = counts.starting + counts.thinking + counts.running + counts.waiting;
    const parts = [`${working} working`];
    if (counts.done) parts.push(t.ok(`${counts.done} done`));
    if (counts.failed) parts.push(t.error(`${counts.failed} failed`));
    if (counts.cancelled) parts.push(t.warn(`${counts.cancelled} cancelled`));
    const hint = this.focused
      ? t.dim("↑↓ select · enter open · m message · c cancel · esc back")
      : t.dim("ctrl+t to select");
    const header = `${t.accent("agents")} ${parts.join(t.dim(" · "))}  ${hint}`;
    const lines = [truncateToWidth(header, width)];
    const max = Math.max(1, this.maxRows() - 1);
    this.selected = Math.min(this.selected, Math.max(0, rows.length - 1));
    if (this.selected < this.scroll) this.scroll = this.selected;
    if (this.selected >= this.scroll + max) this.scroll = this.selected - max + 1;
    this.scroll = Math.max(0, Math.min(this.scroll, Math.max(0, rows.length - max)));
    const shown = rows.slice(this.scroll, this.scroll + max);
    shown.forEach((row, i) => {
      lines.push(this.line(row.node, row.depth, this.focused && this.scroll + i === this.selected, width));
    });
    const hidden = rows.length - shown.length;
    if (hidden > 0 && lines.length > 1) {
      lines[lines.length - 1] = truncateToWidth(t.dim(`  … ${hidden} more (ctrl+t, then ↑↓)`), width);
    }
    return lines;
  }

  private line(node: AgentNode, depth: number, selected: boolean, width: number): string {
    const t = this.theme;
    const mark = MARKS[node.status];
    const ended: Partial<Record<AgentStatus, (text: string) => string>> = {
      done: t.ok,
      failed: t.error,
      cancelled: t.warn,
    };
    const color = ended[node.status] ?? t.accent;
    const elapsed = formatDuration(Math.max(0, (node.endedAt ?? this.now()) - node.startedAt));
    // Cost worded as everywhere in the UI (costWord); before its first answer a child's prices are not
    // known here, so no figure rather than a "$0.00" that may turn into "unpriced".
    const cost = node.tokens === 0 && node.cost === 0 ? "" : ` · ${costWord(node.cost)}`;
    const spend = `${formatTokens(node.tokens)} tok${cost}`;
    const right = t.dim(`${elapsed} · ${spend}`);
    const indent = "  ".repeat(depth);
    const pointer = selected ? t.accent("❯ ") : "  ";
    const label = selected ? t.c.bold(node.label) : node.label;
    const left = `${pointer}${indent}${color(mark)} ${label} ${t.dim(node.status)} ${t.dim("·")} ${node.step}`;
    const room = width - visibleWidth(right) - 1;
    if (room < 20) return truncateToWidth(left, width);
    const l = truncateToWidth(left, room);
    return `${l}${" ".repeat(Math.max(1, width - visibleWidth(l) - visibleWidth(right)))}${right}`;
  }
}
