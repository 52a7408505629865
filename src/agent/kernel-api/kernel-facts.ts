// What an agent's system prompt says about its kernel's Python must be true: a kernel without IPython
// runs cells with plain exec, where `!cmd` and `%magic` are syntax errors. A local kernel's interpreter
// is probed here before the prompt is built. One elsewhere (ssh, a container, Slurm, cmd:) is known
// only once it starts and reports itself (its ready message), and it starts while the prompt is built.
// So before such an agent's first model request, this waits for its kernel and renews the prompt with
// what it reported (journaled like a compaction's renewal). No request has been sent yet, so every
// request of the agent still extends the one before it, and its cached prefix holds.
import type { Conversation } from "../core/conversation.js";

interface KernelFactsAgent {
  readonly conversation: Conversation;
  /** The kernel, booting or live (kernel.ts): a failed start rejects, and the first cell says why. */
  readonly kernel: { ensure(): Promise<unknown> };
  readonly log: { record(body: { type: "system_prompt"; text: string }): unknown };
  /** The running turn's: a person's interrupt stops the wait (the turn then ends). */
  readonly state: { readonly abort: AbortController };
  /** The wait stops where the time budget ends, if there is one. */
  readonly budget: { timeLeftMs(): number | undefined };
}

/** Before a model request: once, for an agent whose kernel's Python the prompt could not know yet. */
export async function settleKernelFacts(agent: KernelFactsAgent): Promise<void> {
  if (!agent.conversation.awaitsKernel) return;
  const outcome = await untilStartedOrStopped(agent);
  if (outcome === "stopped") return; // asked again before the next request
  const text = agent.conversation.settleKernel();
  if (text !== undefined) agent.log.record({ type: "system_prompt", text });
}

function untilStartedOrStopped(agent: KernelFactsAgent): Promise<"started" | "stopped"> {
  return new Promise((resolve) => {
    const signal = agent.state.abort.signal;
    const left = agent.budget.timeLeftMs();
    const timer = left === undefined ? undefined : setTimeout(() => finish("stopped"), left);
    const onAbort = () => finish("stopped");
    function finish(outcome: "started" | "stopped"): void {
      if (timer) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    }
    if (signal.aborted) return finish("stopped");
    signal.addEventListener("abort", onAbort, { once: true });
    // A start that failed is settled too: the prompt keeps "not known", the first cell says why.
    agent.kernel.ensure().then(
      () => finish("started"),
      () => finish("started"),
    );
  });
}
