// The session's event stream as ACP `session/update`s: the model's text as message chunks, each cell of
// the root agent as an "execute" tool call (its code, its output as it streams, its final status), each
// sub-agent as a tool call whose content follows the child's steps, and the goal as a plan. History
// (a journal replayed by session/load) and live events go through the same mapping; live-only events
// (text and output deltas) simply never appear in a journal.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { PlanEntry, SessionUpdate, ToolCallContent, ToolCallStatus } from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../agent/core/events.js";
import { firstLine } from "../config/text.js";
import { imageTypeOfFile } from "../session/image-files.js";
import { learningNotice } from "../session/learning-notice.js";
import type { PlanStep } from "../session/types.js";

// ACP v1's tool_call_update replaces a tool call's whole `content` (it is not appended to), so a live
// update cannot carry only the new output: whatever it leaves out disappears from the editor. Deltas
// are not possible; what keeps each update small is that it carries a bounded view while the cell runs
// — the code (cut if very long) and the last lines of output, like a terminal's visible screen — and
// the cell's whole (journaled, capped) output once, when it ends.

/** plan()'s statuses as ACP's. */
const STEP_STATUS = { pending: "pending", doing: "in_progress", done: "completed" } as const;

/** The live tail a running cell's update shows: at most this many lines and characters. */
export const LIVE_TAIL_LINES = 40;
export const LIVE_TAIL_CHARS = 4000;
/** Output kept per running cell: what the live tail is cut from. */
const LIVE_OUTPUT_CHARS = 2 * LIVE_TAIL_CHARS;
/** Code longer than this is cut in live updates (shown whole in the tool call and when the cell ends). */
export const LIVE_CODE_CHARS = 8000;
/** Lines of a sub-agent's steps shown in its tool call. */
const CHILD_LOG_LINES = 40;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

function fence(text: string, lang = ""): string {
  // A fence longer than any run of backticks inside, so code containing ``` still renders.
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${lang}\n${text.replace(/\n$/, "")}\n${ticks}`;
}

/**
 * The last lines of a running cell's output (`kept`, the end of all it printed, `newlines` in all),
 * saying how much came before them.
 */
export function liveTail(kept: string, newlines: number): string {
  let start = Math.max(0, kept.length - LIVE_TAIL_CHARS);
  const lines = kept.slice(start).split("\n");
  // A trailing newline ends the last line rather than starting an empty one.
  const keep = LIVE_TAIL_LINES + (lines.at(-1) === "" ? 1 : 0);
  if (lines.length > keep) start = kept.length - lines.slice(-keep).join("\n").length;
  const tail = kept.slice(start);
  const earlier = newlines - (tail.split("\n").length - 1);
  if (earlier <= 0 && start === 0) return tail;
  const cut = earlier > 0 ? `${earlier} earlier line(s)` : "the start of a long line";
  return `… ${cut} not shown while it runs (all of it when the cell ends)\n${tail}`;
}

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/** A cell's tool call content: its code, and its output when it printed anything. */
function cellContent(code: string, output: string): ToolCallContent[] {
  const content = [textContent(fence(code, "python"))];
  if (output.trim() !== "") content.push(textContent(fence(output)));
  return content;
}

interface CellState {
  code: string;
  /** The end of what it printed so far (LIVE_OUTPUT_CHARS). */
  output: string;
  /** Newlines in all it printed so far. */
  newlines: number;
  dirty: boolean;
}

interface ChildState {
  task: string;
  log: string[];
  dirty: boolean;
}

const cellCallId = (callId: string) => `cell:${callId}`;
const childCallId = (id: string) => `agent:${id}`;

/**
 * Maps one session's events to updates. Stateful (cells and sub-agents in flight, whether the current
 * answer was streamed); one mapper per client connection to the session.
 */
export class UpdateMapper {
  private readonly cells = new Map<string, CellState>();
  private readonly children = new Map<string, ChildState>();
  /** The model's current answer arrived as text deltas: its model_response must not repeat it. */
  private streamed = false;
  private goal: { text: string; done: boolean } | undefined;
  private progress: string[] = [];
  /** plan()'s steps in the kernel (python/relm/plan.py), as last set. */
  private steps: PlanStep[] = [];
  /** Texts this client sent as prompts: their `user` events are not echoed back. */
  private readonly sent: string[] = [];

  constructor(private readonly sessionDir: string) {}

  /** A prompt this client sent: the client shows it already. */
  sentByClient(text: string): void {
    this.sent.push(text);
  }

  map(event: AgentEvent): SessionUpdate[] {
    if (event.agent) return this.mapChild(event.agent, event);
    switch (event.type) {
      case "text_delta":
        this.streamed = true;
        return event.delta
          ? [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.delta } }]
          : [];
      case "model_response": {
        const streamed = this.streamed;
        this.streamed = false;
        if (streamed || event.text.trim() === "") return [];
        return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } }];
      }
      case "user": {
        const mine = this.sent.findIndex((t) => event.text.includes(t));
        if (mine !== -1) {
          this.sent.splice(mine, 1);
          return [];
        }
        return [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: event.text } }];
      }
      case "message":
        if (event.to !== "self" || event.from === "relm") return [];
        return [
          {
            sessionUpdate: "user_message_chunk",
            content: { type: "text", text: `[message from ${event.from}]\n${event.text}` },
          },
        ];
      case "cell":
        return [this.startCell(event.callId, event.code)];
      case "cell_output_delta": {
        const cell = this.cells.get(event.callId);
        if (!cell) return [];
        cell.output = (cell.output + event.text).slice(-LIVE_OUTPUT_CHARS);
        cell.newlines += event.text.split("\n").length - 1;
        cell.dirty = true;
        return [];
      }
      case "cell_output":
        return [this.endCell(event)];
      case "tool_error":
        return [this.failCall(event.callId, event.message)];
      case "tool_skipped":
        return [this.failCall(event.callId, `not run: ${event.reason}`)];
      case "child_spawned":
        return [this.startChild(event)];
      case "child_finished":
        return [this.endChild(event)];
      case "goal":
        this.goal = { text: event.text, done: false };
        this.progress = [];
        return [this.plan()];
      case "goal_progress":
        this.progress = [...this.progress, event.text].slice(-20);
        return this.goal ? [this.plan()] : [];
      case "plan":
        this.steps = event.steps;
        return [this.plan()];
      case "goal_done":
        if (!this.goal) return [];
        this.goal.done = true;
        return [this.plan()];
      case "budget_stop":
        return [this.notice(`■ ${event.message}`)];
      case "model_error":
      case "error":
        return [this.notice(`✗ ${event.message}`)];
      case "autonomy_end":
        return [this.notice(`■ ${event.report.trim()}`)];
      case "resumed":
        return [this.notice("↺ resumed in a new process")];
      // As message text: editors show every agent_message_chunk in the thread, while thoughts are
      // folded away and a plan is the task list (the goal's), which a notice must not replace.
      case "learn":
      case "harness_verdict":
      case "harness_verify":
      case "harness_probation": {
        const notice = learningNotice(event);
        return notice ? [this.notice(notice.text)] : [];
      }
      default:
        return [];
    }
  }

  /** Live output gathered since the last flush, one update per cell (and sub-agent) that changed. */
  flush(): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    for (const [callId, cell] of this.cells) {
      if (!cell.dirty) continue;
      cell.dirty = false;
      out.push({
        sessionUpdate: "tool_call_update",
        toolCallId: cellCallId(callId),
        content: this.liveCellContent(cell),
      });
    }
    for (const [id, child] of this.children) {
      if (!child.dirty) continue;
      child.dirty = false;
      out.push({
        sessionUpdate: "tool_call_update",
        toolCallId: childCallId(id),
        content: this.childContent(child),
      });
    }
    return out;
  }

  /** Whether live output waits to be flushed. */
  get pending(): boolean {
    return [...this.cells.values()].some((c) => c.dirty) || [...this.children.values()].some((c) => c.dirty);
  }

  private notice(text: string): SessionUpdate {
    return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n\n${text}\n` } };
  }

  /** A running cell's bounded view: its code (cut when very long) and the tail of its output. */
  private liveCellContent(cell: CellState): ToolCallContent[] {
    const code =
      cell.code.length > LIVE_CODE_CHARS
        ? `${cell.code.slice(0, LIVE_CODE_CHARS)}\n# … ${cell.code.length - LIVE_CODE_CHARS} more characters of code`
        : cell.code;
    return cellContent(code, liveTail(cell.output, cell.newlines));
  }

  private startCell(callId: string, code: string): SessionUpdate {
    this.streamed = false;
    this.cells.set(callId, { code, output: "", newlines: 0, dirty: false });
    return {
      sessionUpdate: "tool_call",
      toolCallId: cellCallId(callId),
      title: firstLine(code, 80) || "Python",
      kind: "execute",
      status: "in_progress",
      rawInput: { code },
      content: cellContent(code, ""),
    };
  }

  private endCell(event: Extract<AgentEvent, { type: "cell_output" }>): SessionUpdate {
    const code = this.cells.get(event.callId)?.code ?? "";
    this.cells.delete(event.callId);
    const status: ToolCallStatus = event.status === "ok" ? "completed" : "failed";
    const content = cellContent(code, event.output);
    for (const image of event.imageFiles) {
      const data = this.image(image);
      if (data)
        content.push({ type: "content", content: { type: "image", mimeType: imageTypeOfFile(image), data } });
    }
    if (event.note) content.push(textContent(event.note));
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: cellCallId(event.callId),
      status,
      content,
      rawOutput: {
        status: event.status,
        executionCount: event.executionCount,
        durationMs: event.durationMs,
        ...(event.error ? { error: event.error } : {}),
        ...(event.exitCode !== undefined ? { exitCode: event.exitCode } : {}),
        ...(event.truncated ? { truncated: true, outputChars: event.outputChars } : {}),
      },
    };
  }

  private image(relative: string): string | undefined {
    try {
      const path = join(this.sessionDir, relative);
      if (statSync(path).size > MAX_IMAGE_BYTES) return undefined;
      return readFileSync(path).toString("base64");
    } catch {
      return undefined;
    }
  }

  /** A call that failed before (or instead of) running: announced as failed if it was never shown. */
  private failCall(callId: string, message: string): SessionUpdate {
    const failed = {
      toolCallId: cellCallId(callId),
      status: "failed" as const,
      content: [textContent(message)],
    };
    return this.cells.delete(callId)
      ? { sessionUpdate: "tool_call_update", ...failed }
      : { sessionUpdate: "tool_call", title: "Python", kind: "execute", ...failed };
  }

  private childContent(child: ChildState, tail?: string): ToolCallContent[] {
    const lines = child.log.slice(-CHILD_LOG_LINES);
    const body = [child.task, ...(lines.length > 0 ? ["", ...lines] : []), ...(tail ? ["", tail] : [])];
    return [textContent(body.join("\n"))];
  }

  private startChild(event: Extract<AgentEvent, { type: "child_spawned" }>): SessionUpdate {
    const parent = event.agent ? ` (of ${event.agent})` : "";
    const child: ChildState = { task: event.task, log: [], dirty: false };
    this.children.set(event.id, child);
    return {
      sessionUpdate: "tool_call",
      toolCallId: childCallId(event.id),
      title: `Sub-agent ${event.label ?? event.name}${parent}`,
      kind: "think",
      status: "in_progress",
      rawInput: {
        id: event.id,
        task: event.task,
        model: event.model,
        ...(event.spec ? { spec: event.spec } : {}),
        variables: event.variables,
      },
      content: this.childContent(child),
    };
  }

  private endChild(event: Extract<AgentEvent, { type: "child_finished" }>): SessionUpdate {
    const child = this.children.get(event.id) ?? { task: "", log: [], dirty: false };
    this.children.delete(event.id);
    const tail =
      event.status === "done"
        ? `result: ${event.result ?? "(none)"}`
        : `${event.status}${event.reason ? `: ${event.reason}` : ""}`;
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: childCallId(event.id),
      status: event.status === "done" ? "completed" : "failed",
      content: this.childContent(child, tail),
      rawOutput: {
        status: event.status,
        ...(event.result !== undefined ? { result: event.result } : {}),
        ...(event.reason ? { reason: event.reason } : {}),
        spent: event.spent,
      },
    };
  }

  /** A sub-agent's own step: a line in its tool call (its children get tool calls of their own). */
  private mapChild(id: string, event: AgentEvent): SessionUpdate[] {
    if (event.type === "child_spawned") return [this.startChild(event)];
    if (event.type === "child_finished") return [this.endChild(event)];
    const child = this.children.get(id);
    if (!child) return [];
    const line = ((): string | undefined => {
      switch (event.type) {
        case "cell":
          return `▸ ${firstLine(event.code, 80)}`;
        case "cell_output": {
          // An exception's own line: a traceback's first line is a rule of dashes.
          const raised = event.error ? `${event.error.name}: ${event.error.value}`.replace(/: $/, "") : "";
          const out = firstLine(raised || event.output, 100);
          return `  ${event.status === "ok" ? "✓" : "✗"} ${event.status}${out ? `: ${out}` : ""}`;
        }
        case "model_response":
          return event.text.trim() ? `· ${firstLine(event.text, 100)}` : undefined;
        case "budget_stop":
        case "error":
        case "model_error":
          return `✗ ${event.message}`;
        default:
          return undefined;
      }
    })();
    if (!line) return [];
    child.log.push(line);
    if (child.log.length > CHILD_LOG_LINES * 2) child.log.splice(0, child.log.length - CHILD_LOG_LINES);
    child.dirty = true;
    return [];
  }

  /** The editor's plan (one update replaces the whole): the goal, plan()'s steps, the goal's progress. */
  private plan(): SessionUpdate {
    const entry = (
      content: string,
      status: PlanEntry["status"],
      priority: PlanEntry["priority"] = "medium",
    ) => ({
      content,
      priority,
      status,
    });
    const goal = this.goal
      ? [entry(this.goal.text, this.goal.done ? "completed" : "in_progress", "high")]
      : [];
    return {
      sessionUpdate: "plan",
      entries: [
        ...goal,
        ...this.steps.map((step) => entry(step.text, STEP_STATUS[step.status])),
        ...this.progress.map((text) => entry(text, "completed")),
      ],
    };
  }
}
