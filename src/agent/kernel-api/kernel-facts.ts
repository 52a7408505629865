// What an agent's system prompt says about its kernel's Python must be true: a kernel without IPython
// runs cells with plain exec, where `!cmd` and `%magic` are syntax errors. A local kernel's interpreter
// is probed here before the prompt is built. One elsewhere (ssh, a container, Slurm, cmd:) is known
// only once it starts and reports itself (its ready message), and it starts while the prompt is built.
// So is which skill packages such a kernel can import (python/relm/skillpath.py: a skill named like a
// module its Python already has is shadowed; the harness lists every skill as `import NAME`); a local
// kernel's the host tells without it (kernel/skill-shadow.ts). So before such an agent's first model request, this waits for its kernel and renews the prompt with
// what it reported (journaled like a compaction's renewal). No request has been sent yet, so every
// request of the agent still extends the one before it, and its cached prefix holds.
import type { Budget } from "../budget/budget.js";
import { Deadline } from "../budget/deadline.js";
import type { Conversation } from "../core/conversation.js";
import { untilAborted } from "./kernel.js";

interface KernelFactsAgent {
  readonly conversation: Conversation;
  /** The kernel, booting or live (kernel.ts): a failed start rejects, and the first cell says why. */
  readonly kernel: { ensure(): Promise<unknown> };
  readonly log: { record(body: { type: "system_prompt"; text: string }): unknown };
  /** The running turn's: a person's interrupt stops the wait (the turn then ends). */
  readonly state: { readonly abort: AbortController };
  /** The wait stops where the time budget ends, if there is one. */
  readonly budget: Budget;
}

/** Before a model request: once, for an agent whose kernel's Python the prompt could not know yet. */
export async function settleKernelFacts(agent: KernelFactsAgent): Promise<void> {
  if (!agent.conversation.awaitsKernel) return;
  const deadline = new Deadline(agent.budget, agent.state.abort.signal);
  try {
    // A start that failed is settled too: the prompt keeps "not known", the first cell says why.
    await untilAborted(
      agent.kernel.ensure().catch(() => undefined),
      deadline.signal,
    );
  } catch {
    return; // interrupted, or out of time: asked again before the next request
  } finally {
    deadline.dispose();
  }
  const text = agent.conversation.settleKernel();
  if (text !== undefined) agent.log.record({ type: "system_prompt", text });
}
