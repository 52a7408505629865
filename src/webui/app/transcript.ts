// A session's events folded into what its page shows, in order: the person's messages, the model's
// answers (streamed, then as the journal has them), cells with their live output, and one-line notices.
// Root events are numbered: one at or below the last seen is history told twice (a replay that overlaps
// what the page has) and is dropped, so a reconnect never shows anything twice.
import type { AgentEvent } from "../../agent/core/events.js";
import { shownRequest } from "../../commands/approval-words.js";
import { learningNotice } from "../../session/learning-notice.js";
import { type UsagePoint, usagePoint } from "../usage.js";
import { cost } from "./format.js";

export type Item =
  | { kind: "user"; key: string; text: string }
  | { kind: "answer"; key: string; turn: number; text: string; reasoning: string; streaming: boolean }
  | {
      kind: "cell";
      key: string;
      code: string;
      output: string;
      status?: string;
      error?: string;
      images: string[];
      durationMs?: number;
    }
  | { kind: "diff"; key: string; title: string; diff: string }
  | { kind: "notice"; key: string; text: string; tone: "info" | "warn" | "error" };

/** One run of an autonomous session's gates, for the gates strip (gate-strip.ts). */
export interface GateRun {
  t: number;
  passed: boolean;
  /** Each gate command and how it ended (skipped ones, after a failure, are not run). */
  results: { command: string; passed: boolean; exitCode: number | null; timedOut: boolean }[];
  skipped: number;
}

/** A sub-agent as the tree shows it: who started it, what it is doing, what it spent. */
export interface AgentNode {
  id: string;
  /** The agent that started it (undefined: the session's root). */
  parent: string | undefined;
  label: string;
  task: string;
  model: string;
  status: "running" | "done" | "failed" | "cancelled";
  reason?: string;
  /** Its own spend, once it finished. */
  tokens?: number;
  cost?: number | null;
  /** Where its kernel runs (local, or the launcher's URI: ssh://…, slurm://…), once its kernel started. */
  where?: string;
  /** Its events seen, and the kind of the last. */
  events: number;
  doing: string;
  children: string[];
}

type ResponseReasoning = { items?: Record<string, unknown>[] } | undefined;

/** The readable text of a response's reasoning items (OpenAI summaries, Anthropic thinking). */
function reasoningText(reasoning: ResponseReasoning): string {
  const parts: string[] = [];
  for (const item of reasoning?.items ?? []) {
    if (typeof item.thinking === "string") parts.push(item.thinking);
    if (Array.isArray(item.summary))
      for (const s of item.summary as { text?: unknown }[])
        if (typeof s?.text === "string") parts.push(s.text);
  }
  return parts.join("\n\n");
}

/** Where a kernel runs, from its started event's detail ("… via ssh://gpu1"): the launcher's URI, or local. */
function whereOf(detail: string): string {
  return / via (\S+)$/.exec(detail)?.[1] ?? "local";
}

const LEARNING = new Set(["learn", "lesson", "harness_verdict", "harness_verify", "harness_probation"]);

const money = (spent: number | null | undefined) => (typeof spent === "number" ? ` ${cost(spent)}` : "");

export class Transcript {
  items: Item[] = [];
  /** The last root event applied. */
  lastN = 0;
  /** Where this agent's own kernel runs, once its kernel started (as AgentNode.where). */
  where: string | undefined;
  /** Each model response of this agent, in order: when, its tokens (cached input apart) and cost. */
  readonly usage: UsagePoint[] = [];
  /** Each run of this agent's gates (autonomous mode), in order. */
  readonly gates: GateRun[] = [];
  /** Approval events seen: each one means the host's waiting list changed. */
  approvalEvents = 0;
  /** Learning events seen (passes, lesson notes, verdicts): each one may change the learning view. */
  learningEvents = 0;
  /** Sub-agents' events seen (their transcripts open elsewhere). */
  childEvents = 0;
  /** Every sub-agent of the tree, by id; `roots` are those the session's root started. */
  readonly agents = new Map<string, AgentNode>();
  readonly roots: string[] = [];
  private readonly answers = new Map<number, Extract<Item, { kind: "answer" }>>();
  private readonly cells = new Map<string, Extract<Item, { kind: "cell" }>>();
  private seq = 0;

  /**
   * What changed since the page last drew, for the parts drawn from it: the tree (any sub-agent's event)
   * and the rest (the root's events: items, plots, gates, where). A thousand sub-agents say something ten
   * times a second; the transcript and the plots are drawn again only when the root said something.
   */
  treeRevision = 0;
  itemsRevision = 0;

  /** Applies one event; false when it changed nothing shown (a duplicate, a child's, an unknown kind). */
  apply(event: AgentEvent): boolean {
    if (event.agent) {
      this.childEvents++;
      const changed = this.treeEvent(event);
      if (changed) this.treeRevision++;
      return changed;
    }
    if ("n" in event) {
      if (event.n <= this.lastN) return false;
      this.lastN = event.n;
    }
    if (this.treeEvent(event)) this.treeRevision++;
    this.itemsRevision++;
    if (event.type === "approval_request" || event.type === "approval_answer") this.approvalEvents++;
    if (LEARNING.has(event.type)) this.learningEvents++;
    if (event.type === "kernel" && event.event === "started") this.where = whereOf(event.detail);
    if (event.type === "gate_run")
      this.gates.push({
        t: Date.parse(event.t),
        passed: event.passed,
        results: event.results.map(({ command, passed, exitCode, timedOut }) => ({
          command,
          passed,
          exitCode,
          timedOut,
        })),
        skipped: event.skipped.length,
      });
    // The turn is over: a cell it never got a result for (its kernel could not start) will not get one.
    if (event.type === "error" || event.type === "interrupted" || event.type === "final")
      for (const cell of this.cells.values()) cell.status ??= "not run to its end";
    const key = "n" in event ? `n${event.n}` : `l${++this.seq}`;
    switch (event.type) {
      case "user":
        return this.push({ kind: "user", key, text: event.text });
      case "text_delta":
        this.answer(event.turn, key).text += event.delta;
        return true;
      case "reasoning_delta":
        this.answer(event.turn, key).reasoning += event.delta;
        return true;
      case "text_reset":
        this.answer(event.turn, key).text = "";
        return true;
      case "model_response": {
        this.usage.push(usagePoint(event));
        const text = event.text;
        const reasoning = reasoningText(event.reasoning as ResponseReasoning);
        const answer = this.answers.get(event.turn);
        if (!answer && text.trim() === "" && reasoning === "") return false;
        const item = answer ?? this.answer(event.turn, key);
        item.text = text;
        if (reasoning) item.reasoning = reasoning;
        item.streaming = false;
        if (item.text.trim() === "" && item.reasoning === "")
          this.items = this.items.filter((i) => i !== item);
        return true;
      }
      case "cell": {
        const cell = { kind: "cell" as const, key, code: event.code, output: "", images: [] };
        this.cells.set(event.callId, cell);
        return this.push(cell);
      }
      case "cell_output_delta": {
        const cell = this.cells.get(event.callId);
        if (!cell || cell.status) return false;
        cell.output += event.text;
        return true;
      }
      case "cell_output": {
        const cell = this.cells.get(event.callId);
        if (!cell) return false;
        cell.output = event.output;
        cell.status = event.status;
        cell.durationMs = event.durationMs;
        cell.images = event.imageFiles.map((f) => f.split("/").pop() ?? f);
        if (event.error) cell.error = `${event.error.name}: ${event.error.value}`;
        return true;
      }
      case "final": {
        const last = [...this.answers.values()].at(-1);
        if (last && last.text.trim() === event.text.trim()) return false;
        return this.push({
          kind: "answer",
          key,
          turn: -1,
          text: event.text,
          reasoning: "",
          streaming: false,
        });
      }
      case "file_edit":
        return this.push({
          kind: "diff",
          key,
          title: `${event.action} ${event.path} (+${event.added} −${event.removed})`,
          diff: event.diff,
        });
      case "rewind": {
        this.dropFrom(event.to);
        const notice = noticeOf(event);
        if (notice) this.push({ kind: "notice", key, ...notice });
        return true;
      }
      default: {
        const notice = noticeOf(event);
        return notice ? this.push({ kind: "notice", key, ...notice }) : false;
      }
    }
  }

  /**
   * A rewind to before the person's message numbered `to`: it and everything after it leave the page, as
   * they left the conversation (the first item journaled at or after it on; streamed items between
   * numbered ones go with their neighbours).
   */
  private dropFrom(to: number): void {
    const at = this.items.findIndex((i) => i.key.startsWith("n") && Number(i.key.slice(1)) >= to);
    if (at < 0) return;
    const gone = new Set(this.items.splice(at));
    for (const [turn, answer] of this.answers) if (gone.has(answer)) this.answers.delete(turn);
    for (const [id, cell] of this.cells) if (gone.has(cell)) this.cells.delete(id);
  }

  /**
   * The tree of sub-agents: a child_spawned adds a node under the agent that sent it, child_finished
   * closes it, and any other event of a child says it is alive and what it does. A child whose start
   * was not seen (a grandchild started before the page opened) is placed under the root until it is.
   */
  private treeEvent(event: AgentEvent): boolean {
    if (event.type === "child_spawned") {
      const node = this.node(event.id, event.agent);
      Object.assign(node, { label: event.label ?? event.name, task: event.task, model: event.model });
      return true;
    }
    if (event.type === "child_finished") {
      const node = this.node(event.id, event.agent);
      node.status = event.status;
      node.reason = event.reason;
      node.tokens = event.spent.tokens;
      node.cost = event.spent.cost;
      node.doing = "";
      return true;
    }
    if (!event.agent) return false;
    const node = this.node(event.agent, undefined);
    node.events++;
    if (event.type === "kernel" && event.event === "started") node.where = whereOf(event.detail);
    if (event.type !== "text_delta" && event.type !== "reasoning_delta" && event.type !== "cell_output_delta")
      node.doing =
        event.type === "cell" ? "running a cell" : event.type === "model_request" ? "asking the model" : "";
    return true;
  }

  private node(id: string, parent: string | undefined): AgentNode {
    let node = this.agents.get(id);
    if (!node) {
      node = {
        id,
        parent,
        label: id,
        task: "",
        model: "",
        status: "running",
        events: 0,
        doing: "",
        children: [],
      };
      this.agents.set(id, node);
      const under = parent ? this.agents.get(parent) : undefined;
      if (under) under.children.push(id);
      else this.roots.push(id);
    }
    return node;
  }

  private push(item: Item): true {
    this.items.push(item);
    return true;
  }

  private answer(turn: number, key: string): Extract<Item, { kind: "answer" }> {
    let item = this.answers.get(turn);
    if (!item) {
      item = { kind: "answer", key, turn, text: "", reasoning: "", streaming: true };
      this.answers.set(turn, item);
      this.items.push(item);
    }
    return item;
  }
}

/** The notices of the transcript: what happened, in one line. */
function noticeOf(e: AgentEvent): { text: string; tone: "info" | "warn" | "error" } | undefined {
  switch (e.type) {
    case "error":
      return { text: e.message, tone: "error" };
    case "model_error":
      return { text: `model error (${e.kind}): ${e.message}`, tone: "error" };
    case "tool_error":
      return { text: `tool error: ${e.message}`, tone: "error" };
    case "warning":
      return { text: e.message, tone: "warn" };
    case "interrupted":
      return { text: `interrupted: ${e.reason}`, tone: "warn" };
    case "budget_stop":
      return { text: e.message, tone: "warn" };
    case "model_retry":
      return { text: `retrying the model (attempt ${e.attempt}): ${e.reason}`, tone: "warn" };
    case "kernel":
      return e.event === "started" ? undefined : { text: `kernel ${e.event}: ${e.detail}`, tone: "warn" };
    case "goal":
      return { text: `goal: ${e.text}`, tone: "info" };
    case "goal_done":
      return { text: `goal done${e.note ? `: ${e.note}` : ""}`, tone: "info" };
    case "goal_paused":
      return { text: `goal paused: ${e.reason}`, tone: "warn" };
    case "gate_run":
      return { text: `gates ${e.passed ? "passed" : "failed"}`, tone: e.passed ? "info" : "warn" };
    case "autonomy_end":
      return { text: `autonomous run ended: ${e.outcome}`, tone: "info" };
    case "child_spawned":
      return { text: `sub-agent ${e.label ?? e.name} started (${e.model})`, tone: "info" };
    case "child_finished":
      return {
        text: `sub-agent ${e.label ?? e.name} ${e.status}${e.reason ? `: ${e.reason}` : ""}${money(e.spent.cost)}`,
        tone: e.status === "done" ? "info" : "warn",
      };
    case "message":
      return { text: `message from ${e.from}: ${e.text}`, tone: "info" };
    case "compaction":
      return { text: `conversation compacted: ${e.tokensBefore} → ${e.tokensAfter} tokens`, tone: "info" };
    case "resumed":
      return { text: "resumed in a new host", tone: "info" };
    case "mode":
      return { text: `permission mode: ${e.from} → ${e.mode}`, tone: "info" };
    case "model":
      return { text: `model: ${e.model}`, tone: "info" };
    case "undo":
      return { text: `undid turn ${e.turn}: ${e.changed.length} file(s) restored`, tone: "info" };
    case "approval_request": {
      const r = shownRequest(e);
      return { text: `${r.requester} asks to ${r.kind}: ${r.subject} (${r.reason})`, tone: "warn" };
    }
    case "approval_answer":
      return {
        text: `${e.allow ? `allowed${e.scope === "once" ? " once" : ` for this ${e.scope}`}` : "denied"} by ${e.by === "policy" ? "the policy" : e.by}${e.note ? `: ${e.note}` : ""}`,
        tone: e.allow ? "info" : "warn",
      };
    case "rewind":
      return {
        text: `rewound to before "${e.text.split("\n")[0]?.slice(0, 60)}"${e.files ? " with the files" : ""}; the kernel keeps its variables`,
        tone: "info",
      };
    case "lesson":
      return { text: "a lesson was learned", tone: "info" };
    default: {
      // A learning pass, a verdict, a replay check, lessons on probation: the terminal's line.
      const said = learningNotice(e);
      return said ? { text: said.text, tone: said.tone === "warn" ? "warn" : "info" } : undefined;
    }
  }
}
