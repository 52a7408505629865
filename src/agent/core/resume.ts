import type { ContentPart, Message, ToolCall } from "../../llm/types.js";
import { imageTypeOfFile } from "../../session/image-files.js";
import { readSessionFile } from "../../session/session-files.js";
import type { JournalEvent, PlanStep } from "../../session/types.js";
import { dropLessonNotes } from "../lessons.js";
import { SHELL_CALL_PREFIX, shellMessage } from "./shell.js";
import { messageFrom, renderCellResult, toolText, userMessage } from "./tool.js";

/** A conversation rebuilt from its journal, and what was in flight when it stopped. */
export interface RebuiltConversation {
  messages: Message[];
  /** Highest turn number used so far. */
  lastTurn: number;
  /** Tool calls that never got an answer: the host stopped before or while running them. */
  unanswered: { turn: number; call: ToolCall; started: boolean }[];
  /** A model call that was sent but never answered. */
  modelCallInFlight: number | undefined;
  /** The last turn ended with a final answer (nothing was left half done). */
  settled: boolean;
  /** The goal set last, if any. */
  goal?: string;
  /** The task list set last (plan()), if any. */
  plan?: PlanStep[];
  /** The model switched to last (`model` events), if any. */
  model?: string;
  /** Input + output tokens of the last model response since the last compaction (0 when none). */
  contextTokens: number;
}

/**
 * Replays a journal into the exact messages the model saw, so a resumed session sends the same bytes
 * as before (the provider's prompt cache still hits) and the model picks up where it was.
 */
export function rebuildConversation(dir: string, events: readonly JournalEvent[]): RebuiltConversation {
  const messages: Message[] = [];
  const pending = new Map<string, { turn: number; call: ToolCall; started: boolean }>();
  let lastTurn = 0;
  let inFlight: number | undefined;
  let settled = true;
  let goal: string | undefined;
  let plan: PlanStep[] | undefined;
  let model: string | undefined;
  let contextTokens = 0;
  // A person's `!command` cells (shell.ts): answered by no tool call, read by the model as a note.
  const shellCode = new Map<string, string>();
  for (const e of events) {
    switch (e.type) {
      case "goal":
        goal = e.text;
        break;
      case "plan":
        plan = e.steps;
        break;
      case "model":
        model = e.model;
        break;
      case "user":
        messages.push({
          role: "user",
          content: [
            { type: "text", text: e.text },
            ...(e.images ?? []).flatMap((file) => imageFrom(dir, file)),
          ],
        });
        settled = false;
        break;
      case "message":
        if (e.to === "self") {
          messages.push(messageFrom(e.from, e.text));
        }
        break;
      case "model_request":
        lastTurn = Math.max(lastTurn, e.turn);
        inFlight = e.turn;
        break;
      case "model_error":
        inFlight = undefined;
        break;
      case "model_response":
        inFlight = undefined;
        contextTokens = e.usage.inputTokens + e.usage.outputTokens;
        messages.push({
          role: "assistant",
          text: e.text,
          toolCalls: e.toolCalls,
          ...(e.reasoning ? { reasoning: e.reasoning } : {}),
        });
        for (const call of e.toolCalls) pending.set(call.id, { turn: e.turn, call, started: false });
        break;
      case "cell": {
        if (e.callId.startsWith(SHELL_CALL_PREFIX)) shellCode.set(e.callId, e.code);
        const p = pending.get(e.callId);
        if (p) p.started = true;
        break;
      }
      case "cell_output": {
        const shell = shellCode.get(e.callId);
        if (shell !== undefined) {
          messages.push(shellMessage(shell, { output: e.output, note: e.note }));
          break;
        }
        pending.delete(e.callId);
        const images = e.imageFiles.flatMap((file) => imageFrom(dir, file));
        const content = renderCellResult({
          output: e.output,
          shellExitCode: e.exitCode,
          note: e.note,
          images,
        });
        messages.push({ role: "tool", toolCallId: e.callId, content });
        break;
      }
      case "tool_error":
        pending.delete(e.callId);
        messages.push(toolText(e.callId, e.message));
        break;
      case "tool_skipped":
        pending.delete(e.callId);
        messages.push(toolText(e.callId, `[${e.reason}]`));
        break;
      case "final":
        settled = true;
        break;
      case "compaction": {
        contextTokens = 0;
        // The same swap the live session made: the summary, then the turns it kept verbatim.
        const kept = e.kept > 0 ? messages.slice(-e.kept) : [];
        messages.splice(0, messages.length, userMessage(e.summaryMessage), ...kept);
        dropLessonNotes(messages);
        break;
      }
      case "lesson":
        messages.push(userMessage(e.text));
        break;
      case "rewind": {
        // The same swap the live session made (rewind.ts): the conversation before that message, then
        // the note that the kernel did not go back. Nothing after it is in flight any more.
        const before = conversationBefore(dir, events, e.to, e.note);
        messages.splice(0, messages.length, ...before.messages);
        contextTokens = before.contextTokens;
        pending.clear();
        inFlight = undefined;
        settled = true;
        break;
      }
      default:
        break;
    }
  }
  return {
    messages,
    lastTurn,
    unanswered: [...pending.values()],
    modelCallInFlight: inFlight,
    settled,
    goal,
    ...(plan ? { plan } : {}),
    model,
    contextTokens,
  };
}

/**
 * The conversation as it was just before event `to` (a rewind's target): the journal before it replayed
 * (earlier rewinds and compactions included), then `note`.
 */
export function conversationBefore(
  dir: string,
  events: readonly JournalEvent[],
  to: number,
  note: string,
): RebuiltConversation {
  const end = events.findIndex((e) => e.n >= to);
  const rebuilt = rebuildConversation(dir, end < 0 ? [...events] : events.slice(0, end));
  rebuilt.messages.push(userMessage(note));
  return rebuilt;
}

/**
 * An image of a person's message or of a cell, read back from its file; none when it is gone or is not
 * a file of the session's folder (a cell's images are in outputs/, which its kernel can write: a link
 * there to $RELM_HOME/auth.json must not be sent to the model as an image).
 */
function imageFrom(dir: string, file: string): Extract<ContentPart, { type: "image" }>[] {
  const data = readSessionFile(dir, file);
  return data ? [{ type: "image", mimeType: imageTypeOfFile(file), data: data.toString("base64") }] : [];
}
