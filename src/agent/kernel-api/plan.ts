// plan() in a kernel (python/relm/plan.py): the agent's task list, journaled as a `plan` event for the
// front ends to show (the UI's checklist, ACP's plan updates, `relm agents`' n/m). It is a report only.
import type { JournalBody, PlanStep } from "../../session/types.js";
import { asRecord, KernelCallError } from "./errors.js";

const MAX_STEPS = 50;
const MAX_TEXT = 300;
const STATUSES = new Set(["pending", "doing", "done"]);

/** The agent whose kernel sets its plan: it keeps the last list for a kernel started again. */
export interface PlanAgent {
  planSteps: PlanStep[];
  record(body: JournalBody): unknown;
}

/** plan.get: the list set last (a new kernel of the agent starts with none of its own). */
export function planSteps(agent: PlanAgent): { steps: PlanStep[] } {
  return { steps: agent.planSteps };
}

/** plan.set: the whole list, checked, then journaled. */
export function handlePlanRequest(agent: PlanAgent, raw: unknown): null {
  const params = asRecord(raw, "plan.set");
  const steps = params.steps;
  if (!Array.isArray(steps) || steps.length > MAX_STEPS)
    throw new KernelCallError(`plan.set: steps must be a list of at most ${MAX_STEPS}`);
  const checked: PlanStep[] = steps.map((step, i) => {
    const s = step as { text?: unknown; status?: unknown } | null;
    if (typeof s?.text !== "string" || typeof s.status !== "string" || !STATUSES.has(s.status))
      throw new KernelCallError(`plan.set: step ${i + 1} needs a text and a status (pending, doing, done)`);
    return { text: s.text.slice(0, MAX_TEXT), status: s.status as PlanStep["status"] };
  });
  agent.planSteps = checked;
  agent.record({ type: "plan", steps: checked });
  return null;
}
