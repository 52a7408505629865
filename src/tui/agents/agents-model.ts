// The agent tree as the UI knows it, derived from the event stream alone (the same events `--json`
// prints), so attaching to a running session and watching it live build the same tree.
import type { AgentEvent } from "../../agent/core/events.js";
import { firstLine, terminalText } from "../../config/text.js";

export type AgentStatus = "starting" | "thinking" | "running" | "waiting" | "done" | "failed" | "cancelled";

export interface AgentNode {
  id: string;
  /** What the UI shows: the rlm.map item, the name given to rlm.spawn, else the generated name. */
  label: string;
  name: string;
  task: string;
  model: string;
  /** The agent that started it; undefined for children of the session's root agent. */
  parent: string | undefined;
  children: string[];
  status: AgentStatus;
  /** What it is doing now, in a few words. */
  step: string;
  startedAt: number;
  endedAt?: number;
  tokens: number;
  cost: number | null;
  result?: string;
  reason?: string;
  /** The end of the running cell's output so far: its last line is the step shown. */
  outputTail?: string;
}

/** Output kept per running cell to find its last line. */
const OUTPUT_TAIL_CHARS = 400;

const ENDED: ReadonlySet<AgentStatus> = new Set(["done", "failed", "cancelled"]);

export function isEnded(node: AgentNode): boolean {
  return ENDED.has(node.status);
}

export class AgentsModel {
  private readonly nodes = new Map<string, AgentNode>();
  private readonly top: string[] = [];
  /** Bumped on every change, so views can cache their rendering. */
  version = 0;

  clear(): void {
    this.nodes.clear();
    this.top.length = 0;
    this.version++;
  }

  get size(): number {
    return this.nodes.size;
  }

  get(id: string): AgentNode | undefined {
    return this.nodes.get(id);
  }

  /** Updates the tree from one event; returns whether anything changed. */
  apply(event: AgentEvent): boolean {
    const changed = this.update(event);
    if (changed) this.version++;
    return changed;
  }

  private update(event: AgentEvent): boolean {
    if (event.type === "child_spawned") {
      if (this.nodes.has(event.id)) return false;
      const { label } = event;
      const node: AgentNode = {
        id: event.id,
        label: label && label.trim() !== "" ? firstLine(label, 60) : event.name,
        name: event.name,
        task: event.task,
        model: event.model,
        parent: event.agent,
        children: [],
        status: "starting",
        step: "starting",
        startedAt: Date.parse(event.t),
        tokens: 0,
        cost: 0,
      };
      this.nodes.set(event.id, node);
      const parent = event.agent ? this.nodes.get(event.agent) : undefined;
      if (parent) {
        parent.children.push(event.id);
        if (!isEnded(parent)) {
          parent.status = "waiting";
          parent.step = `waiting for ${this.runningChildren(parent)} sub-agent(s)`;
        }
      } else this.top.push(event.id);
      return true;
    }
    if (event.type === "child_finished") {
      const node = this.nodes.get(event.id);
      if (!node) return false;
      node.status = event.status;
      node.endedAt = Date.parse(event.t);
      node.tokens = event.spent.tokens;
      node.cost = event.spent.cost;
      node.result = event.result;
      node.reason = event.reason;
      node.step =
        event.status === "done" ? firstLine(event.result ?? "done", 60) : (event.reason ?? event.status);
      const parent = node.parent ? this.nodes.get(node.parent) : undefined;
      if (parent && !isEnded(parent) && parent.status === "waiting" && this.runningChildren(parent) === 0) {
        parent.status = "thinking";
        parent.step = "reading results";
      }
      return true;
    }
    const id = event.agent;
    const node = id ? this.nodes.get(id) : undefined;
    if (!node || isEnded(node)) return false;
    switch (event.type) {
      case "model_request":
        node.status = "thinking";
        node.step = `thinking (turn ${event.turn})`;
        return true;
      case "model_response":
      case "llm_call":
        // Its own calls and its llm() calls count alike: one unpriced makes the spend unpriced, as the
        // agent's budget counts it (agent/budget/budget.ts).
        addSpend(node, event.usage, event.cost);
        if (event.type === "model_response")
          node.step = event.toolCalls.length > 0 ? "writing a cell" : "answering";
        return true;
      case "model_error":
        // A request a budget stopped as it streamed: its spend, by the estimate, was booked all the same.
        if (!event.usage) return false;
        addSpend(node, event.usage, event.cost);
        return true;
      case "cell":
        node.status = "running";
        node.step = firstLine(event.code.replace(/^\s*#.*\n/gm, ""), 60);
        node.outputTail = "";
        return true;
      case "cell_output_delta": {
        // Its latest output line, once it prints: what it is doing now, not the cell's first line. Not
        // drawn for each delta (false): the clock's tick redraws while sub-agents run.
        node.outputTail = `${node.outputTail ?? ""}${event.text}`.slice(-OUTPUT_TAIL_CHARS);
        const last = node.outputTail.split(/\r?\n|\r/).findLast((line) => line.trim() !== "");
        if (last !== undefined) node.step = `› ${firstLine(terminalText(last).trim(), 60)}`;
        return false;
      }
      case "cell_output":
        node.status = "thinking";
        node.step = event.status === "ok" ? "cell done" : `cell ${event.status}`;
        return true;
      case "final":
        node.step = "answered";
        return true;
      default:
        return false;
    }
  }

  private runningChildren(node: AgentNode): number {
    return node.children.filter((c) => {
      const child = this.nodes.get(c);
      return child !== undefined && !isEnded(child);
    }).length;
  }

  /** Every agent, depth-first in start order, with its depth below the root (children of the root: 0). */
  flatten(): { node: AgentNode; depth: number }[] {
    const out: { node: AgentNode; depth: number }[] = [];
    const visit = (id: string, depth: number) => {
      const node = this.nodes.get(id);
      if (!node) return;
      out.push({ node, depth });
      for (const c of node.children) visit(c, depth + 1);
    };
    for (const id of this.top) visit(id, 0);
    return out;
  }

  running(): number {
    let n = 0;
    for (const node of this.nodes.values()) if (!isEnded(node)) n++;
    return n;
  }

  counts(): Record<AgentStatus, number> {
    const counts: Record<AgentStatus, number> = {
      starting: 0,
      thinking: 0,
      running: 0,
      waiting: 0,
      done: 0,
      failed: 0,
      cancelled: 0,
    };
    for (const node of this.nodes.values()) counts[node.status]++;
    return counts;
  }
}

/** Books one call's spend on `node`: one unpriced call (null or no cost) makes its spend unpriced. */
function addSpend(
  node: AgentNode,
  usage: { inputTokens: number; outputTokens: number },
  cost: number | null | undefined,
): void {
  node.tokens += usage.inputTokens + usage.outputTokens;
  node.cost = cost === null || cost === undefined || node.cost === null ? null : node.cost + cost;
}
