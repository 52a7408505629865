// Host calls a cell waits on that its interrupt stops: llm(), llm.batch(), rlm.map(), request(), fetch()
// and search(), MCP calls. Python gives each a random id (python/relm/calls.py cancelled_on_interrupt)
// and, interrupted while it waits, sends the call's cancel method (llm.cancel, rlm.map_cancel,
// approval.cancel, web.cancel, mcp.cancel) with that id. One table serves them all: the ids are random
// per call, and the key holds the agent's id, so a kernel reaches only its own agent's calls.
import { asRecord, optionalString } from "./errors.js";

const inProgress = new Map<string, AbortController>();

/**
 * Runs `work` with a signal aborted by the call's cancel method, or when the kernel that asked exits
 * (`gone`, with `goneReason` as the abort's reason).
 */
export async function cancellable<T>(
  agent: { readonly id: string },
  params: Record<string, unknown>,
  gone: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
  goneReason?: string,
): Promise<T> {
  const call = optionalString(params, "call");
  const key = call ? `${agent.id}\0${call}` : undefined;
  const controller = new AbortController();
  const onGone = () => controller.abort(goneReason);
  if (gone?.aborted) onGone();
  else gone?.addEventListener("abort", onGone, { once: true });
  if (key !== undefined) inProgress.set(key, controller);
  try {
    return await work(controller.signal);
  } finally {
    gone?.removeEventListener("abort", onGone);
    // A kernel that reused an id replaced this entry: the later call's stays.
    if (key !== undefined && inProgress.get(key) === controller) inProgress.delete(key);
  }
}

/** A cancel method: the cell that made call `call` of this agent was interrupted; it stops, if it runs. */
export function cancelCall(agent: { readonly id: string }, method: string, raw: unknown): null {
  const call = optionalString(asRecord(raw, method), "call");
  if (call) inProgress.get(`${agent.id}\0${call}`)?.abort();
  return null;
}
