import { join } from "node:path";
import { Budget } from "../../agent/budget/budget.js";
import { buildClient } from "../../cli/client.js";
import { EXIT } from "../../cli/exit-codes.js";
import { limitsOf } from "../../cli/host-args.js";
import { askOnce, cancelled, QuestionCancelled } from "../../cli/question.js";
import { relmHomeFrom, resolveConfig } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import type { SessionSpec } from "../../config/options.js";
import { JOURNAL_FILE, readHeaderAndTail, resolveAgent, sessionsDir } from "../../session/index.js";
import { applyRefinement, describeRefinement, proposeRefinement, type Refinement } from "../refine/refine.js";
import { type HarnessContext, revisionSummary, type Scope } from "../store/index.js";
import { guarded, type HarnessIo, harnessContext } from "./harness-cli.js";

/** The refine model's endpoint and its call's own budgets, as on `relm run` (a call they cannot cover is not made). */
interface RefineFlags
  extends Pick<SessionSpec, "provider" | "baseUrl" | "model" | "maxTokens" | "maxTime" | "maxCost"> {
  dryRun?: boolean;
  apply?: boolean;
  scope?: Scope;
}

/** Applies the refinement and says what happened; returns the exit code. */
function applyAndReport(ref: Refinement, ctx: HarnessContext, out: NodeJS.WritableStream): number {
  const { revision, dropped } = applyRefinement(ref, ctx);
  for (const d of dropped) out.write(`not applied: ${d.reason}\n`);
  if (!revision) {
    out.write("nothing was applied\n");
    return EXIT.done;
  }
  out.write(
    `applied as revision ${revision.rev} in the ${ref.scope} scope: ${revisionSummary(revision)}\n` +
      `it takes effect in new sessions; \`relm harness revert ${revision.rev}\` undoes it\n`,
  );
  return EXIT.done;
}

/**
 * `relm refine ID`: proposes checked edits from the session's work and shows them as a diff. They are
 * applied with --apply, or when a person answers y in a terminal; --dry-run and piped runs write nothing.
 */
export function refineCommand(id: string, flags: RefineFlags, io: HarnessIo): Promise<number> {
  return guarded(io, async () => {
    if (flags.dryRun && flags.apply) throw new UsageError("--dry-run and --apply cannot be used together");
    const scope = flags.scope ?? "session";
    // Checked before anything is read: a bad value is a usage error.
    const budget = new Budget(limitsOf(flags));
    // A sub-agent's id refines from that agent's own journal; its session scope is its root session's.
    const agent = resolveAgent(sessionsDir(relmHomeFrom(io.env)), id);
    const ctx = harnessContext({}, io, agent);
    const journalPath = join(agent.dir, JOURNAL_FILE);
    const header = readHeaderAndTail(journalPath, 1).header;
    const config = resolveConfig(io.env, flags);
    // The session's own model unless a cheaper one is configured for refinements.
    const client = buildClient(
      config,
      flags.model ?? config.refineModel ?? header.model ?? config.model.model,
    );
    const ref = await proposeRefinement({ journalPath, ctx, scope, client, budget, requireHypothesis: true });
    io.stdout.write(`${describeRefinement(ref)}\n`);
    // Unchecked edits are not applied: the relevance check could not be made.
    if (ref.error || ref.held) return EXIT.error;
    if (ref.accepted.length === 0) return EXIT.done;
    if (flags.dryRun) {
      io.stdout.write("dry run: nothing was written\n");
      return EXIT.done;
    }
    if (flags.apply) return applyAndReport(ref, ctx, io.stdout);
    if (!process.stdin.isTTY) {
      io.stdout.write("not applied: run again with --apply to apply these edits\n");
      return EXIT.done;
    }
    let answer: string;
    try {
      answer = await askOnce(`Apply ${ref.accepted.length} edit(s) to the ${scope} scope? [y/N] `, io.stdout);
    } catch (error) {
      if (!(error instanceof QuestionCancelled)) throw error;
      return cancelled(io.stderr, "refine cancelled; nothing was applied");
    }
    if (/^y(es)?$/i.test(answer)) return applyAndReport(ref, ctx, io.stdout);
    io.stdout.write("not applied\n");
    return EXIT.done;
  });
}
