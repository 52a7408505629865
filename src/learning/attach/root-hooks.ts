// What learning attaches to the root agent of a session tree (src/agent/hooks.ts): online refinement
// (learn/) before model calls, at compactions and after gate runs; verdicts on harness edits where the
// session host says the work can be judged (verdicts/), and, when learning, the replay checks improved
// ones need (verdicts/verify-runner.ts); and the host's refine, refine.apply and learn.

import type { HookedRoot, RootHooks } from "../../agent/hooks.js";
import { RPC, RpcError } from "../../host/rpc.js";
import type { JournalEvent } from "../../session/types.js";
import { type LearnOptions, type LearnStatus, SessionLearning } from "../learn/learn.js";
import { judgeEdits } from "../verdicts/verdict-hook.js";
import { type BackgroundVerifySettings, VerifyRunner } from "../verdicts/verify-runner.js";
import { RefineProposals } from "./refine-rpc.js";

// Each root's learning by the hooks made for it: /learn in line mode reaches it through the session.
const learningByHooks = new WeakMap<RootHooks, SessionLearning>();

/** The hooks of one root agent. */
export function learningRootHooks(
  agent: HookedRoot,
  events: readonly JournalEvent[],
  options: LearnOptions & { verify?: BackgroundVerifySettings },
): RootHooks {
  const learning = new SessionLearning(agent, events, options);
  const refine = new RefineProposals(agent, options.refineModel);
  // A learning session checks the improved edits whose promotion waits for a replay (verify-runner.ts).
  const verify = options.verify
    ? new VerifyRunner(agent, options.verify, () => learning.settings.verifyShare)
    : undefined;
  const hooks: RootHooks = {
    beforeModelCall: () => learning.beforeModelCall(),
    atCompaction: () => learning.atCompaction(),
    afterGateRun: (run, event) => learning.afterGateRun(run, event),
    judgeWork: () => {
      const judged = judgeEdits(agent);
      if (learning.enabled) verify?.consider(judged);
    },
    closing: async (stop) => verify?.close(stop),
    hostMethods: {
      refine: (p) => refine.propose(p),
      "refine.apply": (p) => refine.apply(p),
      learn: (p) => learnMethod(learning, p),
    },
  };
  learningByHooks.set(hooks, learning);
  return hooks;
}

/**
 * The learning of a root agent (an Agent); undefined when learning is not attached to it.
 * @testing what a test reads of a session's learning (hosts reach it through the host methods).
 */
export function learningOf(session: { readonly hooks: RootHooks | undefined }): SessionLearning | undefined {
  return session.hooks ? learningByHooks.get(session.hooks) : undefined;
}

/** `/learn on|off|status` of a session host: online refinement (journaled, so a resume keeps it). */
function learnMethod(learning: SessionLearning, p: Record<string, unknown>): LearnStatus {
  const mode = p.mode ?? "status";
  if (mode === "on" || mode === "off") return learning.setOn(mode === "on");
  if (mode !== "status") throw new RpcError(RPC.invalidParams, 'learn: mode must be "on", "off" or "status"');
  return learning.status();
}
