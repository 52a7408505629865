import type { CellResult } from "../kernel/types.js";
import type { Message, ModelClient, ModelError, ModelResponse, ToolCall } from "../llm/types.js";
import type { JournalBody, JournalEvent } from "../session/types.js";
import type { Budget, BudgetStop } from "./budget.js";
import type { EventSink } from "./events.js";
import { IPYTHON_TOOL, parseToolCall, renderCellResult } from "./tool.js";

export type TurnOutcome =
  | { status: "done"; text: string; submitted: boolean; value?: unknown }
  | { status: "budget"; stop: BudgetStop }
  | { status: "error"; message: string; error?: ModelError }
  | { status: "interrupted"; reason: string };

/** Everything one turn of the loop needs from its session. */
export interface LoopContext {
  readonly client: ModelClient;
  readonly system: string;
  readonly messages: Message[];
  readonly budget: Budget;
  readonly sink: EventSink;
  record(body: JournalBody): JournalEvent;
  /** Runs a cell in the kernel and journals its result (redacted, images written aside). */
  runCell(turn: number, callId: string, code: string): Promise<CellResult>;
  /** The value passed to submit() during the last cell, if any, and its text; reading it clears it. */
  takeSubmission(): { value: unknown; text: string } | undefined;
  /** Messages that arrived for this agent since the last turn boundary; reading them clears them. */
  takeMessages(): { from: string; text: string }[];
  /** Why an aborted turn stopped (a person's Ctrl-C, or a parent's cancel). */
  interruptReason(): string;
  /** Before each model call: compaction when the prompt nears the model's window. */
  beforeModelCall?(): Promise<void>;
  /** Before the first cell of a turn: the file checkpoint. */
  beforeCells?(turn: number): Promise<void>;
  /** After each model response: its size (the next prompt holds it all), for deciding on compaction. */
  afterResponse?(usage: { inputTokens: number; outputTokens: number }): void;
  nextTurnNumber(): number;
  /** Set while a turn runs; aborted by interrupt(). */
  abort: AbortController;
}

/**
 * One user turn: call the model, run the cells it asks for, feed back the outputs, and repeat until it
 * answers without a tool call, submits a value, or a budget, error or interrupt stops it.
 */
export async function runTurn(ctx: LoopContext, userText: string): Promise<TurnOutcome> {
  ctx.record({ type: "user", text: userText });
  ctx.messages.push({ role: "user", content: [{ type: "text", text: userText }] });

  for (;;) {
    if (ctx.abort.signal.aborted) return interrupted(ctx);
    for (const m of ctx.takeMessages()) {
      // Delivered at the turn boundary, so the model reads it before deciding its next step.
      ctx.record({ type: "message", from: m.from, to: "self", text: m.text });
      ctx.messages.push({
        role: "user",
        content: [{ type: "text", text: `[message from ${m.from}]\n${m.text}` }],
      });
    }
    await ctx.beforeModelCall?.();
    const stop = ctx.budget.check();
    if (stop) {
      ctx.record({
        type: "budget_stop",
        budget: stop.budget,
        limit: stop.limit,
        spent: stop.spent,
        message: stop.message,
      });
      return { status: "budget", stop };
    }

    const turn = ctx.nextTurnNumber();
    ctx.record({ type: "model_request", turn, messages: ctx.messages.length });
    const started = Date.now();
    const outcome = await callModel(ctx, turn);
    if ("error" in outcome) {
      const error = outcome.error;
      if (error.kind === "aborted") return interrupted(ctx);
      ctx.record({
        type: "model_error",
        turn,
        kind: error.kind,
        status: error.status,
        message: error.message,
      });
      return { status: "error", message: error.message, error };
    }

    const response = outcome.response;
    const usage = response.usage;
    ctx.budget.recordCall(usage.inputTokens + usage.outputTokens, response.cost);
    ctx.afterResponse?.(usage);
    const message = response.message;
    ctx.record({
      type: "model_response",
      turn,
      text: message.text,
      toolCalls: message.toolCalls,
      usage,
      cost: response.cost,
      stopReason: response.stopReason,
      requestBytes: response.requestBytes,
      attempts: response.attempts,
      durationMs: Date.now() - started,
    });
    ctx.messages.push(message);

    if (message.toolCalls.length === 0) {
      ctx.record({ type: "final", text: message.text, spent: ctx.budget.spent() });
      return { status: "done", text: message.text, submitted: false };
    }

    const afterCells = await runToolCalls(ctx, turn, message.toolCalls);
    if (afterCells) return afterCells;
  }
}

async function callModel(
  ctx: LoopContext,
  turn: number,
): Promise<{ response: ModelResponse } | { error: ModelError }> {
  const request = { system: ctx.system, messages: ctx.messages, tools: [IPYTHON_TOOL] };
  for await (const event of ctx.client.stream(request, ctx.abort.signal)) {
    switch (event.type) {
      case "text":
        ctx.sink({ type: "text_delta", turn, delta: event.delta });
        break;
      case "retry":
        ctx.record({
          type: "model_retry",
          turn,
          attempt: event.attempt,
          delayMs: event.delayMs,
          reason: event.reason,
        });
        ctx.sink({ type: "text_reset", turn });
        break;
      case "done": {
        const { type: _type, ...response } = event;
        return { response };
      }
      case "error":
        return { error: event.error };
      default:
        break;
    }
  }
  return { error: { kind: "stream", message: "the model stream ended without a result", attempts: 1 } };
}

/** Runs each requested cell in order; returns an outcome when the turn must end early. */
async function runToolCalls(
  ctx: LoopContext,
  turn: number,
  calls: ToolCall[],
): Promise<TurnOutcome | undefined> {
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as ToolCall;
    if (ctx.abort.signal.aborted) {
      answerSkipped(ctx, turn, calls.slice(i), "not run: the turn was interrupted");
      return interrupted(ctx);
    }
    const parsed = parseToolCall(call);
    if (!parsed.ok) {
      ctx.record({ type: "tool_error", turn, callId: call.id, message: parsed.error });
      ctx.messages.push({
        role: "tool",
        toolCallId: call.id,
        content: [{ type: "text", text: parsed.error }],
      });
      continue;
    }
    await ctx.beforeCells?.(turn);
    ctx.record({ type: "cell", turn, callId: call.id, code: parsed.code });
    const result = await ctx.runCell(turn, call.id, parsed.code);
    ctx.messages.push({ role: "tool", toolCallId: call.id, content: renderCellResult(result) });

    const submission = ctx.takeSubmission();
    if (submission) {
      answerSkipped(ctx, turn, calls.slice(i + 1), "not run: submit() ended the run");
      ctx.record({ type: "final", text: submission.text, spent: ctx.budget.spent() });
      return { status: "done", text: submission.text, submitted: true, value: submission.value };
    }
  }
  return undefined;
}

/** Every tool call needs an answer, or the next request is rejected by the provider. */
function answerSkipped(ctx: LoopContext, turn: number, calls: ToolCall[], reason: string): void {
  for (const call of calls) {
    ctx.record({ type: "tool_skipped", turn, callId: call.id, reason });
    ctx.messages.push({
      role: "tool",
      toolCallId: call.id,
      content: [{ type: "text", text: `[${reason}]` }],
    });
  }
}

function interrupted(ctx: LoopContext): TurnOutcome {
  const reason = ctx.interruptReason();
  ctx.record({ type: "interrupted", reason });
  return { status: "interrupted", reason };
}
