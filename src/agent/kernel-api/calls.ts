import { checkGoal } from "../../config/option-values.js";
import type { ModelClient } from "../../llm/types.js";
import type { JournalBody } from "../../session/types.js";
import type { Budget } from "../budget/budget.js";
import { handoffPickle } from "../children/handoff-files.js";
import type { ChildManager, SubmitPayload } from "../children/manager.js";
import { handleMessageRequest, type MessagingAgent } from "../children/messaging.js";
import type { TreeOptions } from "../core/tree.js";
import type { AgentGoal } from "../gates/goal.js";
import type { KernelCaller } from "../hooks.js";
import { type ApprovalAgent, handleApprovalRequest } from "./approvals.js";
import { cancelCall, cancellable } from "./cancellable.js";
import { complete, completeBatch } from "./completions.js";
import { asRecord, KernelCallError, optionalString, requiredString } from "./errors.js";
import { handleLookRequest, type LookAgent } from "./look.js";
import { handleMcpRequest, type McpApiAgent } from "./mcp.js";
import { isKernelMethod } from "./methods.js";
import { handlePlanRequest, type PlanAgent, planSteps } from "./plan.js";
import { handleToolkitRequest, type ToolkitApiAgent } from "./toolkit.js";
import { handleWebRequest, type WebApiAgent } from "./web.js";

/** The agent a kernel belongs to, as the kernel's calls see it. */
export interface KernelCallsAgent
  extends KernelCaller,
    MessagingAgent,
    GoalAgent,
    McpApiAgent,
    ToolkitApiAgent,
    WebApiAgent,
    LookAgent,
    ApprovalAgent,
    PlanAgent {
  readonly tree: KernelCaller["tree"] & {
    readonly options: Pick<TreeOptions, "hooks" | "scheduler">;
  } & McpApiAgent["tree"] &
    ToolkitApiAgent["tree"] &
    WebApiAgent["tree"] &
    ApprovalAgent["tree"];
  readonly budget: Budget;
  readonly children: ChildManager;
  readonly model: { readonly current: ModelClient; named(model?: string | null): ModelClient };
  /** The turn a cell's llm() call belongs to (its retries are journaled under it). */
  readonly conversation: { readonly turn: number };
  record(body: JournalBody): unknown;
}

/** Answers a call from Python (python/relm/api.py, agents.py) to the agent that owns the kernel. */
export async function handleKernelCall(
  agent: KernelCallsAgent,
  method: string,
  raw: unknown,
  /** Aborted when the kernel that called exits. */
  gone?: AbortSignal,
): Promise<unknown> {
  // Only the listed methods: a name Python does not call (methods.ts) is not answered.
  if (!isKernelMethod(method)) throw new KernelCallError(`the host has no method "${method}"`, "not_found");
  // A plugin's own calls (learning/: python/relm/harness.py's harness.*) go to it.
  const plugin = agent.tree.options.hooks?.kernelCalls;
  if (plugin && method.startsWith(plugin.prefix)) return plugin.handle(agent, method, raw);
  if (method.startsWith("msg.")) return handleMessageRequest(agent, method, raw);
  if (method.startsWith("schedule.")) return handleScheduleRequest(agent.tree.options.scheduler, method, raw);
  if (method.startsWith("goal.")) return handleGoalRequest(agent, method, raw);
  if (method === "plan.set") return handlePlanRequest(agent, raw);
  if (method === "plan.get") return planSteps(agent);
  if (method.startsWith("mcp.")) return handleMcpRequest(agent, method, raw);
  if (method.startsWith("web.")) return handleWebRequest(agent, method, raw);
  if (method.startsWith("look.")) return handleLookRequest(agent, method, raw);
  if (method.startsWith("toolkit.")) return handleToolkitRequest(agent, method, raw);
  if (method === "approval.request") return handleApprovalRequest(agent, raw, gone);
  if (method === "approval.cancel") return cancelCall(agent, method, raw);
  switch (method) {
    case "submit": {
      const params = asRecord(raw, "submit");
      const named = optionalString(params, "pickle");
      const pickle = named === undefined ? null : handoffPickle(named, "submit");
      agent.turns.setSubmission({ json: params.json, repr: String(params.repr ?? ""), pickle });
      return null;
    }
    case "rlm.spawn":
      return agent.children.spawn(raw);
    case "rlm.wait":
      return agent.children.wait(raw);
    case "rlm.status":
      return agent.children.status(raw);
    case "rlm.send":
      return agent.children.send(raw);
    case "rlm.cancel":
      return agent.children.cancel(raw);
    case "rlm.list":
      return agent.children.list();
    case "rlm.map":
      // Not stopped when its kernel exits (no `gone`): the children run on, as they always did.
      return await cancellable(agent, asRecord(raw, "rlm.map"), undefined, (signal) =>
        agent.children.map(raw, signal),
      );
    case "llm": {
      const params = asRecord(raw, "llm");
      return await cancellable(agent, params, gone, async (signal) => ({
        text: await complete(
          agent,
          requiredString(params, "prompt"),
          optionalString(params, "model"),
          signal,
        ),
      }));
    }
    case "llm.batch": {
      const params = asRecord(raw, "llm.batch");
      const prompts = Array.isArray(params.prompts) ? params.prompts.map(String) : [];
      const parallel = typeof params.max_parallel === "number" ? params.max_parallel : 8;
      return await cancellable(agent, params, gone, async (signal) => ({
        texts: await completeBatch(agent, prompts, optionalString(params, "model"), parallel, signal),
      }));
    }
    case "llm.cancel":
    case "rlm.map_cancel":
      return cancelCall(agent, method, raw);
    default:
      throw new KernelCallError(`the host has no method "${method}"`, "not_found");
  }
}

/** `schedule(...)` from Python: ticks re-enter this session (see src/host/schedules/scheduler.ts). */
function handleScheduleRequest(scheduler: TreeOptions["scheduler"], method: string, raw: unknown): unknown {
  if (!scheduler)
    throw new KernelCallError("schedule(): this session is not hosted, so it cannot be re-entered");
  const params = asRecord(raw, method);
  if (method === "schedule.list") return scheduler.list();
  if (method === "schedule.cancel") {
    scheduler.cancel(requiredString(params, "id"));
    return null;
  }
  if (method !== "schedule.add") throw new KernelCallError(`the host has no method "${method}"`, "not_found");
  const prompt = requiredString(params, "prompt");
  const forms = (["every", "at", "cron"] as const).filter((k) => typeof params[k] === "string");
  if (forms.length !== 1) throw new KernelCallError("schedule(): give exactly one of every=, at=, cron=");
  const key = forms[0] as "every" | "at" | "cron";
  try {
    // Quoted as the call was written: a cell has no --every.
    return scheduler.add(
      { [key]: params[key] as string } as { every: string },
      prompt,
      (k, v) => `${k}="${v}"`,
    );
  } catch (error) {
    throw new KernelCallError(`schedule(): ${(error as Error).message}`);
  }
}

/** A goal set from Python, under the limit --goal and /goal have (a ValueError there when over it). */
function goalText(text: string): string {
  try {
    return checkGoal(text, "goal.set()");
  } catch (error) {
    throw new KernelCallError((error as Error).message);
  }
}

interface GoalAgent {
  readonly goal: AgentGoal;
  /** Its turn runner: goal.done() ends the turn as submit() does. */
  readonly turns: { setSubmission(payload: SubmitPayload): void };
  record(body: JournalBody): unknown;
}

/** `goal` and `done()` from Python: the objective of an autonomous run and its progress notes. */
function handleGoalRequest(agent: GoalAgent, method: string, raw: unknown): unknown {
  const params = asRecord(raw, method);
  switch (method) {
    case "goal.get":
      return { text: agent.goal.text ?? null, done: agent.goal.done };
    case "goal.set":
      agent.goal.set(goalText(requiredString(params, "text")));
      return null;
    case "goal.progress": {
      const text = requiredString(params, "text");
      agent.goal.progressNotes += 1;
      agent.record({ type: "goal_progress", text });
      return null;
    }
    case "goal.done": {
      // Like submit(): the run ends after this cell, with the note as its answer.
      const note = optionalString(params, "note");
      agent.goal.done = true;
      agent.record({ type: "goal_done", note });
      agent.turns.setSubmission({ json: note ?? "done", repr: JSON.stringify(note ?? "done"), pickle: null });
      return null;
    }
    default:
      throw new KernelCallError(`the host has no method "${method}"`, "not_found");
  }
}
