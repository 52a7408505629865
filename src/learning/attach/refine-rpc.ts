import { randomBytes } from "node:crypto";
import type { HookedRoot } from "../../agent/hooks.js";
import type { RefineApplied, RefineProposal } from "../../host/protocol.js";
import { RPC, RpcError } from "../../host/rpc.js";
import { applyRefinement, describeRefinement, proposeForSession, type Refinement } from "../refine/refine.js";
import { whereRefinementApplies } from "../refine/refine-where.js";
import { type HarnessContext, isWritableScope, revisionSummary, rootContext } from "../store/index.js";
import { PendingRefinements } from "./pending-refinements.js";
import { teachTree } from "./teach.js";

/** Proposals are kept this long, and only this many, waiting for `refine.apply` (pending-refinements.ts says why). */
const KEEP = { ms: 60 * 60 * 1000, count: 8 };

/**
 * `refine` and `refine.apply` of a session host: a refinement is proposed (a model call charged to the
 * session, like /refine) and kept under a one-time token until a person agrees; nothing is written before.
 */
export class RefineProposals {
  private readonly pending = new PendingRefinements<{ ref: Refinement; ctx: HarnessContext }>(KEEP);

  constructor(
    private readonly session: HookedRoot,
    /** Config's refineModel; the session's own model when unset. */
    private readonly refineModel: string | undefined,
  ) {}

  async propose(params: Record<string, unknown>): Promise<RefineProposal> {
    const scope = params.scope ?? "session";
    if (!isWritableScope(scope)) {
      throw new RpcError(RPC.invalidParams, 'refine: scope must be "session", "project" or "user"');
    }
    const session = this.session;
    const stop = session.budget.check();
    if (stop) throw new RpcError(RPC.refused, `refine: ${stop.message}`);
    const ctx = rootContext(session);
    const client = session.clientFor(this.refineModel);
    const ref = await proposeForSession(session, {
      journalPath: session.journal.path,
      ctx,
      scope,
      client,
      requireHypothesis: true,
    });
    const token = randomBytes(12).toString("hex");
    this.pending.keep(token, { ref, ctx });
    return {
      description: describeRefinement(ref),
      accepted: ref.accepted.length,
      token,
      appliesWhere: where(ref, ctx),
    };
  }

  apply(params: Record<string, unknown>): RefineApplied {
    const token = params.token;
    if (typeof token !== "string")
      throw new RpcError(RPC.invalidParams, "refine.apply needs the token refine gave");
    const kept = this.pending.take(token);
    if (!kept) {
      throw new RpcError(
        RPC.invalidParams,
        "refine.apply: no such proposal (it was applied already, or is older than an hour): run refine again",
      );
    }
    const { ref, ctx } = kept;
    const appliesWhere = where(ref, ctx);
    if (ref.accepted.length === 0) return { applied: false, report: "nothing to apply", appliesWhere };
    const { revision, dropped } = applyRefinement(ref, ctx);
    const lines = dropped.map((d) => `not applied: ${d.reason}`);
    if (!revision) lines.push("nothing was applied");
    else {
      const taught = teachTree(this.session.tree, revision, ref.scope, rootContext(this.session));
      lines.push(
        `applied as revision ${revision.rev} in the ${ref.scope} scope: ${revisionSummary(revision)}`,
        ...(taught.length > 0
          ? [`the running agents of this session (${taught.length}) read it before their next model request`]
          : []),
        `\`relm harness revert ${revision.rev}${ref.scope === "session" ? ` --session ${this.session.id}` : ""}\` undoes it`,
      );
    }
    return { applied: revision !== undefined, report: lines.join("\n"), appliesWhere };
  }
}

function where(ref: Refinement, ctx: HarnessContext): string {
  const kinds = ref.accepted.flatMap((a) => (a.edit.after ?? a.edit.before)?.kind ?? []);
  return whereRefinementApplies(ref.scope, kinds, ctx);
}
