// Choices made before the first message (/goal, /autonomous, /model, /learn), given to the session once
// its host serves it — through the same host methods the commands call afterwards.
import type { HostCall } from "../host/protocol.js";
import type { PendingStart } from "./types.js";

/** Sends what `pending` holds to the host, then empties it. */
export async function applyPending(call: HostCall, pending: PendingStart): Promise<void> {
  const { goal, gates, model, learn } = pending;
  for (const key of Object.keys(pending)) delete pending[key as keyof PendingStart];
  if (model) await call("model", { name: model });
  if (goal) await call("goal", { text: goal });
  if (gates) await call("autonomy", { mode: "on", gates });
  if (learn !== undefined) await call("learn", { mode: learn ? "on" : "off" });
}
