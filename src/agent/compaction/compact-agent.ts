import type { ModelClient } from "../../llm/types.js";
import type { JournalBody } from "../../session/types.js";
import type { Budget } from "../budget/budget.js";
import { type Admission, admit } from "../budget/request-budget.js";
import type { Conversation } from "../core/conversation.js";
import { bookCall, journalRetries } from "../core/retry-log.js";
import type { RootHooks, TreeHooks } from "../hooks.js";
import { dropLessonNotes } from "../lessons.js";
import {
  type CompactResult,
  compactMessages,
  contextWindow,
  estimateMessagesTokens,
  needsCompaction,
} from "./messages.js";

export interface CompactionSettings {
  /** Fraction of the context window at which the conversation is compacted (default 0.8). */
  threshold?: number;
  /** Context windows by model-name prefix, overriding the built-in table. */
  windows?: Record<string, number>;
}

/** What a compaction did; `skipped` when a summary would not have made the prompt smaller. */
export interface CompactionOutcome {
  compacted: boolean;
  message: string;
  skipped?: boolean;
  /** The failure is a `warning` in the journal: front ends that show its events have shown it. */
  journaled?: boolean;
}

/**
 * Replaces the older turns of a conversation by a summary the model writes (goal, constraints, progress,
 * live variable names, files touched) and keeps the last turns verbatim. The kernel is untouched. The
 * journal gets a marker with the summary, so the full history stays there and a resume rebuilds the same
 * messages. Returns what happened, or why nothing did.
 */
async function compactConversation(
  agent: CompactingAgent,
  trigger: CompactTrigger,
): Promise<CompactionOutcome> {
  const force = trigger !== "auto";
  const { budget, conversation } = agent;
  const client = agent.model.current;
  const settings = agent.tree.options.compaction ?? {};
  const known = contextWindow(client.model, settings.windows).tokens;
  // A prompt the server refused was larger than its real window, whatever relm took that to be: the
  // summary request is kept within what the refused prompt was, so it is not refused in turn.
  const window = trigger === "overflow" ? Math.min(known, nextPromptTokens(conversation)) : known;
  const due =
    needsCompaction(conversation.contextTokens, window, settings.threshold ?? 0.8) ||
    nextPromptTokens(conversation) * OVERFLOW_MARGIN >= window;
  if (!force && !due) {
    return { compacted: false, message: "not needed" };
  }
  const stop = budget.check();
  if (stop) return { compacted: false, message: stop.message };
  await agent.preCompact?.(trigger === "manual" ? "manual" : "auto");
  let admission: Admission | undefined;
  const started = Date.now();
  try {
    const result = await compactMessages({
      client,
      messages: conversation.messages,
      goal: agent.goal.text,
      liveVariables: await agent.kernel.variableNames(),
      filesTouched: (await agent.checkpoints?.filesTouched()) ?? [],
      window,
      // Asked for by hand, a short conversation still has something to compact.
      keepLastTurns: force ? 1 : 2,
      // Like every model call: its answer capped by --max-tokens and --max-cost, aborted at --max-time.
      admit: async (request) => {
        const admitted = await admit(budget, client, request, undefined, { window });
        if (admitted.status === "budget") return { error: admitted.stop.message };
        if (admitted.status === "aborted") return { error: "aborted" };
        admission = admitted.admission;
        const log = agent.log;
        return {
          stream: () =>
            journalRetries(
              admitted.admission.stream(),
              (b) => log.record(b),
              () => agent.conversation.turn,
            ),
        };
      },
    });
    if ("error" in result) {
      // A summary written and then discarded (it would not have shrunk the prompt) was still paid for;
      // one stopped by a budget as it streamed, by the estimate.
      const paid = result.usage
        ? { usage: result.usage, cost: result.cost ?? null }
        : admission?.overrun
          ? admission.estimatedSpend()
          : undefined;
      if (paid) bookCall({ budget, record: (b) => agent.log.record(b) }, client.model, paid, started);
      const message =
        result.skipped || result.error.startsWith("compaction failed")
          ? result.error
          : `compaction failed: ${result.error}`;
      // A summary request that failed is on disk (and shown) before the session goes on without it:
      // otherwise an automatic compaction fails in silence, turn after turn, while the prompt grows.
      if (!result.skipped) agent.log.record({ type: "warning", message });
      return {
        compacted: false,
        message,
        skipped: result.skipped,
        ...(result.skipped ? {} : { journaled: true }),
      };
    }
    return applyCompaction(agent, result);
  } finally {
    admission?.release();
  }
}

/** The estimate of the next prompt is taken 10% larger, as the budgets take theirs (four characters a token). */
const OVERFLOW_MARGIN = 1.1;

/**
 * The prompt the next request will send: the last one's size with the answer it got (what the server
 * counted), plus an estimate of what came after that answer (cell outputs, messages). The threshold is
 * measured on the last prompt; this catches the one large cell output that would take the next request
 * past the window before the threshold sees it (the server would refuse that request).
 */
function nextPromptTokens(conversation: Conversation): number {
  const { messages } = conversation;
  const answered = messages.findLastIndex((m) => m.role === "assistant");
  return conversation.contextTokens + estimateMessagesTokens(messages.slice(answered + 1));
}

/** Books the summary's spend, journals the marker and swaps the messages in. */
function applyCompaction(
  agent: CompactingAgent,
  result: CompactResult,
): { compacted: true; message: string } {
  agent.budget.addSpend(result.usage.inputTokens + result.usage.outputTokens, result.cost);
  const summary = result.messages[0];
  const summaryText =
    summary?.role === "user"
      ? summary.content.map((p) => (p.type === "text" ? p.text : "")).join("")
      : result.summary;
  agent.log.record({
    type: "compaction",
    summaryMessage: summaryText,
    kept: result.messages.length - 1,
    summarized: result.summarized,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    usage: result.usage,
    cost: result.cost,
  });
  const messages = agent.conversation.messages;
  messages.splice(0, messages.length, ...result.messages);
  return {
    compacted: true,
    message: `compacted ${result.summarized} messages: about ${result.tokensBefore} → ${result.tokensAfter} tokens`,
  };
}

/** What compacting one agent touches: its conversation and prompt, and what a summary names. */
export interface CompactingAgent {
  /** Its tree (AgentTree): the settings, and the prompt section a compaction renews. */
  readonly tree: {
    readonly options: {
      readonly compaction?: CompactionSettings;
      readonly hooks?: Pick<TreeHooks, "prompt">;
    };
    promptSection: string | undefined;
  };
  readonly depth: number;
  /** The root agent's folder: its harness scope is the session scope of the whole tree. */
  readonly rootDir: string;
  readonly model: { readonly current: ModelClient };
  readonly conversation: Conversation;
  readonly budget: Budget;
  readonly goal: { readonly text: string | undefined };
  readonly log: { record(body: JournalBody): unknown };
  readonly kernel: { variableNames(): Promise<string[]> };
  readonly checkpoints: { filesTouched(): Promise<string[]> } | undefined;
  /** The root's hooks (hooks.ts); undefined in children and without a plugin. */
  readonly hooks: Pick<RootHooks, "atCompaction"> | undefined;
  /** Lessons applied since its last request: a prompt rebuilt with the harness says them already. */
  readonly lessons: { clear(): void };
  /** The user's PreCompact hooks (docs/hooks.md); `trigger`: "manual" for /compact, else "auto". */
  readonly preCompact?: (trigger: "auto" | "manual") => Promise<void>;
}

/**
 * Why a compaction runs: `auto` before a model call, only when the prompt nears the window; `manual`
 * (/compact) and `overflow` (the server refused a prompt as too long for the window) at once, keeping
 * only the last turn verbatim.
 */
type CompactTrigger = "auto" | "manual" | "overflow";

/**
 * Compacts an agent's conversation when the prompt nears the model's window (or now: /compact, or a
 * prompt the server refused as too long). A refined harness takes effect here: the system prompt is
 * rebuilt with it and journaled — also by a /compact that is skipped because a summary would not shrink
 * the prompt.
 */
export async function compactAgent(
  agent: CompactingAgent,
  trigger: CompactTrigger,
): Promise<CompactionOutcome> {
  const { conversation, tree } = agent;
  const outcome = await compactConversation(agent, trigger);
  if (outcome.compacted) {
    conversation.contextTokens = 0;
    // The prompt rebuilt below carries every lesson, so their notes among the kept turns go (resume.ts
    // drops the same ones when it replays the compaction).
    dropLessonNotes(conversation.messages);
    // Before the prompt is rebuilt below, so what a learning pass applies is in it.
    await agent.hooks?.atCompaction?.();
  } else if (!(trigger === "manual" && outcome.skipped)) return outcome;
  const reload = tree.options.hooks?.prompt?.reload;
  if (reload) {
    // With the root session's own scope, whichever agent compacts; children started after the
    // root's compaction get the renewed block too.
    const block = reload(agent.rootDir);
    if (agent.depth === 0) tree.promptSection = block;
    agent.lessons.clear();
    const renewed = conversation.renew(block);
    if (renewed) {
      agent.log.record({ type: "system_prompt", text: renewed });
      if (!outcome.compacted) {
        return { ...outcome, message: `${outcome.message}; the system prompt was renewed with the harness` };
      }
    }
  }
  return outcome;
}
