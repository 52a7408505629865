import type { CellResult } from "../../kernel/types.js";
import { journaledReasoning } from "../../llm/anthropic-thinking.js";
import type { ModelClient, ModelError, ModelResponse, ToolCall } from "../../llm/types.js";
import type { JournalBody, JournalEvent } from "../../session/types.js";
import type { Budget, BudgetStop } from "../budget/budget.js";
import { type Admission, admit } from "../budget/request-budget.js";
import type { LessonDelivery } from "../lessons.js";
import type { Conversation } from "./conversation.js";
import type { EventSink } from "./events.js";
import { IPYTHON_TOOL, messageFrom, parseToolCall, renderCellResult, toolText, userMessage } from "./tool.js";
import {
  continuationNote,
  cutOff,
  EMPTY_REPLY_NOTE,
  MAX_CONTINUATIONS,
  MAX_EMPTY_REPLIES,
} from "./truncation.js";
import type { StagedImage } from "./user-images.js";

export type TurnOutcome =
  | { status: "done"; text: string; submitted: boolean; value?: unknown }
  | { status: "budget"; stop: BudgetStop }
  | { status: "error"; message: string; error?: ModelError }
  | { status: "interrupted"; reason: string };

/** Everything one turn of the loop needs: the agent's conversation, log and kernel, and its limits. */
export interface LoopContext {
  readonly client: ModelClient;
  /** The conversation the turn carries on: prompt, messages, turn numbers (conversation.ts). */
  readonly conversation: Conversation;
  /** The agent's journal, each event also shown to the front end (log.ts). */
  readonly log: { record(body: JournalBody): JournalEvent; redact?(text: string): string };
  /** Live events only (streamed text and reasoning). */
  readonly sink: EventSink;
  /**
   * The agent's kernel (kernel-api/kernel.ts): runs a cell and journals its result (redacted, images written
   * aside). `deadline` (epoch ms): the time budget's end, at which the cell is interrupted.
   */
  readonly kernel: {
    runCell(turn: number, callId: string, code: string, deadline?: number): Promise<CellResult>;
  };
  readonly budget: Budget;
  /** Names this conversation to the provider's prompt cache (the session id; see ModelRequest.cacheKey). */
  readonly cacheKey?: string;
  /** The model's context window in tokens, when known: an answer is capped to fit beside the prompt. */
  readonly contextWindow?: number;
  /** The value passed to submit() during the last cell, if any, and its text; reading it clears it. */
  takeSubmission(): { value: unknown; text: string } | undefined;
  /** Messages that arrived for this agent since the last turn boundary; reading them clears them. */
  takeMessages(): { from: string; text: string }[];
  /** Lessons applied since the last model request (lessons.ts); reading them clears them. */
  takeLessons?(): LessonDelivery[];
  /** Images a person sent with the message that starts the turn (user-images.ts). */
  takeImages?(): StagedImage[];
  /** Why an aborted turn stopped (a person's Ctrl-C, or a parent's cancel). */
  interruptReason(): string;
  /** A tool call's arguments as they stream in (MCP servers a cell names start while it is written). */
  onToolCallDelta?(index: number, delta: string): void;
  /** Before each model call: variables a person sent, compaction when the prompt nears the window. */
  beforeModelCall?(): Promise<void>;
  /** Compacts the conversation at once: the server refused the prompt as too long for the model's window. */
  compact?(): Promise<{ compacted: boolean; message: string }>;
  /** Before the first cell of a turn: the file checkpoint. */
  beforeCells?(turn: number): Promise<void>;
  /** Before each cell (PreToolUse hooks): a reason when the cell must not run, told to the model. */
  beforeCell?(code: string): Promise<string | undefined>;
  /**
   * After each cell: the PostToolUse hooks see its code and result, and a mode switch a person approved
   * during it (request('mode', ...)) happens here, once the cell has ended; text returned is added to
   * the cell's result.
   */
  afterCell?(code: string, result: CellResult): Promise<string | undefined>;
  /** Set while a turn runs; aborted by interrupt(). */
  abort: AbortController;
}

/**
 * One user turn: call the model, run the cells it asks for, feed back the outputs, and repeat until it
 * answers without a tool call, submits a value, or a budget, error or interrupt stops it.
 */
export async function runTurn(ctx: LoopContext, userText: string, from?: string): Promise<TurnOutcome> {
  const outcome = await turnLoop(ctx, userText, from);
  if (outcome.status === "done") ctx.conversation.answered(outcome.text);
  return outcome;
}

async function turnLoop(ctx: LoopContext, userText: string, from: string | undefined): Promise<TurnOutcome> {
  // Images sent with the message (user-images.ts): journaled by file, sent as image parts after the text.
  const images = ctx.takeImages?.() ?? [];
  ctx.log.record({
    type: "user",
    text: userText,
    ...(images.length > 0 ? { images: images.map((i) => i.file) } : {}),
    ...(from !== undefined ? { from } : {}),
  });
  ctx.conversation.messages.push({
    role: "user",
    content: [{ type: "text", text: userText }, ...images.map((i) => i.part)],
  });
  /** Texts of an answer cut off at the output limit and continued, in order. */
  const parts: string[] = [];
  /** Replies in a row with neither text nor a tool call. */
  let emptyReplies = 0;
  /** The request being sent was compacted after the server refused it as too long: not a second time. */
  let compactedForLength = false;

  for (;;) {
    if (ctx.abort.signal.aborted) return interrupted(ctx);
    // Delivered at the turn boundary, so the model reads it before deciding its next step.
    for (const m of ctx.takeMessages()) tell(ctx, m.from, m.text);
    await ctx.beforeModelCall?.();
    // After beforeModelCall, whose learning pass may have applied one; a compaction there has put the
    // earlier ones in the rebuilt system prompt instead. Appended: the request still extends the last.
    for (const { note, event } of ctx.takeLessons?.() ?? []) {
      ctx.log.record(event);
      ctx.conversation.messages.push(userMessage(note));
    }
    const stop = ctx.budget.check();
    if (stop) return budgetStop(ctx, stop);

    const request = {
      system: ctx.conversation.system,
      messages: ctx.conversation.messages,
      tools: [IPYTHON_TOOL],
      ...(ctx.cacheKey ? { cacheKey: ctx.cacheKey } : {}),
    };
    const admitted = await admit(ctx.budget, ctx.client, request, ctx.abort.signal, {
      window: ctx.contextWindow,
    });
    if (admitted.status === "budget") return budgetStop(ctx, admitted.stop);
    if (admitted.status === "aborted") return interrupted(ctx);
    const admission = admitted.admission;
    const turn = ctx.conversation.nextTurn();
    let reply: Awaited<ReturnType<typeof callModel>>;
    try {
      ctx.log.record({ type: "model_request", turn, messages: ctx.conversation.messages.length });
      const started = Date.now();
      reply = await callModel(ctx, turn, admission);
      if ("response" in reply) journalResponse(ctx, turn, reply.response, started);
      else if (reply.error.kind !== "context_length" || admission.overrun || admission.expired) {
        return failed(ctx, turn, reply.error, admission);
      }
    } finally {
      admission.release();
    }
    if ("error" in reply) {
      // After the request's reservation was given back: the compaction's own request needs the budget.
      const ended = await compactForLength(ctx, turn, reply.error, compactedForLength);
      if (ended) return ended;
      compactedForLength = true;
      continue;
    }
    compactedForLength = false;
    const response = reply.response;
    const message = response.message;
    ctx.conversation.messages.push(message);
    const truncated = cutOff(response.stopReason);
    const { maxOutputTokens } = admission;
    const by = admission.cappedByBudget ? "budget" : "model";

    if (message.toolCalls.length === 0) {
      if (truncated) {
        if (by === "budget") {
          // What was left of --max-tokens is spent: the answer stays unfinished, and the run says so.
          ctx.log.record({ type: "truncated", turn, maxOutputTokens, by, action: "stopped" });
          const why = `the answer was cut off at ${maxOutputTokens} tokens, all that was left`;
          const stop =
            admission.cappedBy === "max-cost" ? ctx.budget.costStop(why) : ctx.budget.tokenStop(why);
          return budgetStop(ctx, ctx.budget.check() ?? (stop as BudgetStop));
        }
        if (parts.length >= MAX_CONTINUATIONS) {
          ctx.log.record({ type: "truncated", turn, maxOutputTokens, by, action: "gave_up" });
          const text =
            `the model's answer was cut off at its output limit (stop reason "${response.stopReason}") ` +
            `${parts.length + 1} times in a row; the unfinished answer is in the journal, not reported as done`;
          ctx.log.record({ type: "error", message: text });
          return { status: "error", message: text };
        }
        ctx.log.record({ type: "truncated", turn, maxOutputTokens, by, action: "continued" });
        parts.push(message.text);
        tell(ctx, "relm", continuationNote(maxOutputTokens));
        continue;
      }
      if (parts.length === 0 && message.text.trim() === "") {
        // Nothing said and nothing run is no answer: asked again, never reported as done.
        if (++emptyReplies > MAX_EMPTY_REPLIES) {
          const text =
            `the model replied with neither text nor a cell ${emptyReplies} times in a row ` +
            `(stop reason "${response.stopReason}"); not reported as done`;
          ctx.log.record({ type: "error", message: text });
          return { status: "error", message: text };
        }
        tell(ctx, "relm", EMPTY_REPLY_NOTE);
        continue;
      }
      const text = parts.join("") + message.text;
      ctx.log.record({ type: "final", text, spent: ctx.budget.spent() });
      return { status: "done", text, submitted: false };
    }
    parts.length = 0;
    emptyReplies = 0;
    if (truncated) {
      // Calls whose arguments were cut off fail to parse and the model is told; complete ones run.
      ctx.log.record({ type: "truncated", turn, maxOutputTokens, by, action: "continued" });
    }

    const afterCells = await runToolCalls(ctx, turn, message.toolCalls, truncated);
    if (afterCells) return afterCells;
  }
}

/** Books a complete answer (before its reservation is given back) and journals it. */
function journalResponse(ctx: LoopContext, turn: number, response: ModelResponse, started: number): void {
  const usage = response.usage;
  // Booked before the reservation is given back, so no other request sees the tokens free twice.
  ctx.budget.recordCall(usage.inputTokens + usage.outputTokens, response.cost);
  ctx.conversation.sized(usage);
  ctx.log.record({
    type: "model_response",
    turn,
    text: response.message.text,
    toolCalls: response.message.toolCalls,
    // Sent back with this answer in every later request, after a resume too (but a thinking block
    // whose text the journal redacts is marked as one that can no longer be sent back).
    ...(response.message.reasoning
      ? { reasoning: journaledReasoning(response.message.reasoning, (t) => ctx.log.redact?.(t) ?? t) }
      : {}),
    usage,
    cost: response.cost,
    stopReason: response.stopReason,
    requestBytes: response.requestBytes,
    attempts: response.attempts,
    durationMs: Date.now() - started,
  });
}

/**
 * The server refused the prompt as too long for the model's context window: the conversation is
 * compacted and the request sent again, once. The refusal is journaled (and shown) as a warning before
 * the compaction starts; when compacting cannot be done or does not help (the compacted request is
 * refused too), the turn ends with an error that says what to do. Undefined: send the request again.
 */
async function compactForLength(
  ctx: LoopContext,
  turn: number,
  error: ModelError,
  alreadyCompacted: boolean,
): Promise<TurnOutcome | undefined> {
  const window = ctx.contextWindow === undefined ? "" : ` (relm takes it to be ${ctx.contextWindow} tokens)`;
  const advice =
    `set the model's real context window in config.json's contextWindows${window} so relm compacts ` +
    "before the server refuses, or send shorter messages and cells";
  if (!alreadyCompacted && ctx.compact) {
    ctx.log.record({
      type: "warning",
      message: `${error.message}; compacting the conversation and sending the request again`,
    });
    const outcome = await ctx.compact();
    if (ctx.abort.signal.aborted) return interrupted(ctx);
    if (outcome.compacted) return undefined;
    const stop = ctx.budget.check();
    if (stop) return budgetStop(ctx, stop);
    return tooLongError(
      ctx,
      turn,
      error,
      `compacting the conversation did not help (${outcome.message}); ${advice}`,
    );
  }
  const why = alreadyCompacted ? "still too long after the conversation was compacted" : "";
  return tooLongError(ctx, turn, error, why ? `${why}; ${advice}` : advice);
}

/** The turn's end for a prompt too long for the window: journaled as its model_error, with what to do. */
function tooLongError(ctx: LoopContext, turn: number, error: ModelError, what: string): TurnOutcome {
  const message = `${error.message}; ${what}`;
  ctx.log.record({ type: "model_error", turn, kind: error.kind, status: error.status, message });
  return { status: "error", message, error: { ...error, message } };
}

/** A request that failed: cut off by the time budget, refused a retry for lack of time, interrupted, or an error. */
function failed(ctx: LoopContext, turn: number, error: ModelError, admission: Admission): TurnOutcome {
  const overrun = admission.overrun;
  if (overrun) {
    // Stopped as it streamed: no server counted it, so what it cost by the estimate is booked.
    const { usage, cost } = admission.estimatedSpend();
    ctx.budget.recordCall(usage.inputTokens + usage.outputTokens, cost);
    const message = `the model request was stopped as it streamed: it reached --${overrun.budget}`;
    ctx.log.record({ type: "model_error", turn, kind: "budget", message, usage, cost });
    return budgetStop(ctx, ctx.budget.check() ?? overrun);
  }
  if (admission.expired) {
    // Answered in the journal, so a resume does not take the request for one still in flight.
    const message = "the model request was cut off at the --max-time deadline";
    ctx.log.record({ type: "model_error", turn, kind: "timeout", message });
    return budgetStop(ctx, ctx.budget.check() ?? (ctx.budget.timeStop() as BudgetStop));
  }
  if (error.kind === "aborted") return interrupted(ctx);
  ctx.log.record({
    type: "model_error",
    turn,
    kind: error.kind,
    status: error.status,
    message: error.message,
  });
  if (error.outOfTime) {
    const stop = ctx.budget.timeStop(`a retry of the failed model request would not fit: ${error.message}`);
    if (stop) return budgetStop(ctx, stop);
  }
  return { status: "error", message: error.message, error };
}

/** A message for the agent (`from` "relm": the loop's own note), journaled and added to its conversation. */
function tell(ctx: LoopContext, from: string, text: string): void {
  ctx.log.record({ type: "message", from, to: "self", text });
  ctx.conversation.messages.push(messageFrom(from, text));
}

function budgetStop(ctx: LoopContext, stop: BudgetStop): TurnOutcome {
  ctx.log.record({ type: "budget_stop", ...stop });
  return { status: "budget", stop };
}

async function callModel(
  ctx: LoopContext,
  turn: number,
  admission: Admission,
): Promise<{ response: ModelResponse } | { error: ModelError }> {
  for await (const event of admission.stream()) {
    switch (event.type) {
      case "text":
        ctx.sink({ type: "text_delta", turn, delta: event.delta });
        break;
      case "reasoning":
        ctx.sink({ type: "reasoning_delta", turn, delta: event.delta });
        break;
      case "tool_call_delta":
        ctx.onToolCallDelta?.(event.index, event.delta);
        break;
      case "notice":
        // The same notice comes with every request that leaves the same blocks out: journaled once.
        if (!ctx.conversation.notices.has(event.message)) {
          ctx.conversation.notices.add(event.message);
          ctx.log.record({ type: "warning", message: event.message });
        }
        break;
      case "retry":
        ctx.log.record({
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
  truncated: boolean,
): Promise<TurnOutcome | undefined> {
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as ToolCall;
    if (ctx.abort.signal.aborted) {
      answerSkipped(ctx, turn, calls.slice(i), "not run: the turn was interrupted");
      return interrupted(ctx);
    }
    const timeLeft = ctx.budget.timeLeftMs();
    if (timeLeft === 0) {
      answerSkipped(ctx, turn, calls.slice(i), "not run: the time budget ran out");
      return budgetStop(ctx, ctx.budget.check() ?? (ctx.budget.timeStop() as BudgetStop));
    }
    const parsed = parseToolCall(call);
    if (!parsed.ok) {
      const error = truncated
        ? `${parsed.error} Your answer was cut off at its output limit in the middle of this call: send shorter cells.`
        : parsed.error;
      ctx.log.record({ type: "tool_error", turn, callId: call.id, message: error });
      ctx.conversation.messages.push(toolText(call.id, error));
      continue;
    }
    await ctx.beforeCells?.(turn);
    const refused = await ctx.beforeCell?.(parsed.code);
    if (refused !== undefined) {
      // Answered like any call not run: the model reads the hook's reason and can work around it.
      answerSkipped(ctx, turn, [call], `not run: a PreToolUse hook blocked this cell: ${refused}`);
      continue;
    }
    ctx.log.record({ type: "cell", turn, callId: call.id, code: parsed.code });
    // Measured after the checkpoint, which took its own time.
    const left = ctx.budget.timeLeftMs();
    const deadline = left === undefined ? undefined : Date.now() + left;
    const result = await ctx.kernel.runCell(turn, call.id, parsed.code, deadline);
    ctx.conversation.sawCell(result);
    const content = renderCellResult(result);
    const after = await ctx.afterCell?.(parsed.code, result);
    if (after) content.push({ type: "text", text: after });
    ctx.conversation.messages.push({ role: "tool", toolCallId: call.id, content });

    const submission = ctx.takeSubmission();
    if (submission) {
      answerSkipped(ctx, turn, calls.slice(i + 1), "not run: submit() ended the run");
      ctx.log.record({ type: "final", text: submission.text, spent: ctx.budget.spent() });
      return { status: "done", text: submission.text, submitted: true, value: submission.value };
    }
  }
  return undefined;
}

/** Every tool call needs an answer, or the next request is rejected by the provider. */
function answerSkipped(ctx: LoopContext, turn: number, calls: ToolCall[], reason: string): void {
  for (const call of calls) {
    ctx.log.record({ type: "tool_skipped", turn, callId: call.id, reason });
    ctx.conversation.messages.push(toolText(call.id, `[${reason}]`));
  }
}

function interrupted(ctx: LoopContext): TurnOutcome {
  const reason = ctx.interruptReason();
  ctx.log.record({ type: "interrupted", reason, spent: ctx.budget.spent() });
  return { status: "interrupted", reason };
}
