import type { AgentSession } from "../../agent/session.js";
import { buildClient } from "../../cli/client.js";
import type { RunIo } from "../../cli/run.js";
import type { ResolvedConfig } from "../../config/config.js";
import { teachTree } from "../attach/teach.js";
import { describeRefinement, proposeForSession } from "../refine/refine.js";
import { requireHypotheses } from "../refine/refine-hypothesis.js";
import type { Scope } from "../store/index.js";
import { isScope } from "./harness-cli.js";
import { applyAndReport } from "./refine-command.js";

/**
 * `/refine [session|project|user]` in the interactive session: review this session's work, show the
 * checked edits as a diff, and apply them only when the person answers y.
 */
export async function refineSlash(
  args: string,
  session: AgentSession | undefined,
  config: ResolvedConfig,
  io: RunIo,
  ask: (question: string) => Promise<string>,
): Promise<void> {
  if (!session) {
    io.stdout.write("nothing to refine yet: give the agent a task first\n");
    return;
  }
  const word = args.trim().replace(/^--scope[= ]?/, "") || "session";
  if (!isScope(word)) {
    io.stdout.write(`usage: /refine [session|project|user] (default session), not "${word}"\n`);
    return;
  }
  const scope: Scope = word;
  const ctx = { cwd: io.cwd, home: config.home, sessionDir: session.dir };
  const client = config.refineModel ? buildClient(config, config.refineModel) : session.client;
  const ref = requireHypotheses(
    await proposeForSession(session, {
      journalPath: session.journal.path,
      ctx,
      scope,
      client,
      windows: session.tree.options.compaction?.windows,
    }),
  );
  io.stdout.write(`${describeRefinement(ref)}\n`);
  if (ref.accepted.length === 0) return;
  const answer = await ask(`Apply ${ref.accepted.length} edit(s) to the ${scope} scope? [y/N] `);
  if (/^y(es)?$/i.test(answer.trim()))
    applyAndReport(ref, ctx, io.stdout, (rev) => teachTree(session.tree, rev, scope, ctx).length);
  else io.stdout.write("not applied\n");
}
