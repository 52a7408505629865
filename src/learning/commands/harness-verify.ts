// `relm harness verify REV`: the replay check. The task(s) of the session an edit was learnt from are run
// twice, without and with the edit, on the same model, under a budget, each in a scratch copy of the
// files the session started from; the difference in gate result, turns and tokens is reported and
// recorded on the revision (its scope's verdicts.jsonl). A promotion from an autonomous run needs a pass.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { EXIT } from "../../cli/exit-codes.js";
import { limitsOf } from "../../cli/host-args.js";
import { prepareSession } from "../../cli/setup.js";
import { table } from "../../cli/table.js";
import { resolveConfig } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import type { SessionSpec } from "../../config/options.js";
import { JOURNAL_FILE, resolveSessionId, sessionDir, sessionsDir } from "../../session/index.js";
import type { VerifyRun } from "../store/index.js";
import { runReplayCheck, VERIFY_DEFAULTS } from "../verdicts/verify-check.js";
import { provenanceOf, replayPlan } from "../verdicts/verify-plan.js";
import { locateRevision } from "./find-revision.js";
import { guarded, HarnessCliError, type HarnessIo, harnessContext, type ScopeFlags } from "./harness-cli.js";

interface VerifyFlags
  extends ScopeFlags,
    Pick<SessionSpec, "model" | "maxTurns" | "maxTokens" | "maxCost" | "maxTime"> {
  from?: string;
  gate?: string[];
  keep?: boolean;
  json?: boolean;
}

const signed = (n: number) => (n > 0 ? `+${n.toLocaleString("en-US")}` : n.toLocaleString("en-US"));

function comparison(rev: string, without: VerifyRun, withEdit: VerifyRun, gated: boolean): string {
  const rows: [string, string, string, string][] = [
    ["", `without ${rev}`, `with ${rev}`, "change"],
    [
      "gates",
      gated ? (without.gatesPassed ? "passed" : "failed") : "none",
      gated ? (withEdit.gatesPassed ? "passed" : "failed") : "none",
      "",
    ],
    ["outcome", without.outcome, withEdit.outcome, ""],
    ["turns", String(without.turns), String(withEdit.turns), signed(withEdit.turns - without.turns)],
    [
      "tokens",
      without.tokens.toLocaleString("en-US"),
      withEdit.tokens.toLocaleString("en-US"),
      signed(withEdit.tokens - without.tokens),
    ],
    ["session", without.session, withEdit.session, ""],
  ];
  return table(rows);
}

export function verifyCommand(query: string, flags: VerifyFlags, io: HarnessIo): Promise<number> {
  return guarded(io, async () => {
    const limits = {
      maxTurns: flags.maxTurns ?? VERIFY_DEFAULTS.maxTurns,
      maxTime: flags.maxTime ?? VERIFY_DEFAULTS.maxTime,
      maxTokens: flags.maxTokens,
      maxCost: flags.maxCost,
    };
    limitsOf(limits);
    const found = locateRevision(flags, harnessContext(flags, io), query);
    // A revision found in a session's scope is replayed with that session's harness.
    const { store, revision, ctx } = found;
    if (!flags.scope) io.stderr.write(`found ${revision.rev} in the ${found.where}\n`);
    if (revision.revert) {
      throw new HarnessCliError(
        `${revision.rev} is a revert; verify the revision it undid (${revision.revert})`,
      );
    }
    const from = flags.from ? resolveSessionId(sessionsDir(ctx.home), flags.from) : provenanceOf(revision);
    if (!from) {
      throw new HarnessCliError(
        `${revision.rev} names no session it was learnt from (a hand edit); give --from SESSION to replay that session's task(s)`,
      );
    }
    if (!existsSync(join(sessionDir(ctx.home, from), JOURNAL_FILE))) {
      throw new HarnessCliError(
        `${revision.rev} was learnt from session ${from}, whose journal is gone from ${sessionsDir(ctx.home)}; give --from SESSION to replay another`,
      );
    }
    const plan = replayPlan(ctx.home, from, revision);
    if (plan.tasks.length === 0) throw new HarnessCliError(`session ${from} has no task to replay`);
    const gates = flags.gate && flags.gate.length > 0 ? flags.gate : plan.gates;
    const config = resolveConfig(io.env, {});
    const model = flags.model ?? plan.model;
    if (!model) throw new UsageError("no model to replay on: give --model");
    const result = await runReplayCheck({
      real: ctx,
      store,
      revision,
      plan,
      gates,
      model,
      config,
      limits,
      env: io.env,
      prepare: prepareSession,
      keep: flags.keep,
      progress: (variant) =>
        io.stderr.write(
          `replaying ${plan.tasks.length} task(s) of session ${from} ${variant} ${revision.rev} on ${model}…\n`,
        ),
    });
    if (flags.keep) io.stderr.write(`scratch copies and their sessions kept in ${result.root}\n`);
    if (result.status === "error") {
      // Not a failed check: nothing was learnt about the edit, and a promotion still needs one.
      const { record } = result;
      if (flags.json) io.stdout.write(`${JSON.stringify({ scope: store.scope, ...record })}\n`);
      throw new HarnessCliError(
        // The reason may end a sentence of its own (a missing Python's advice does): one full stop.
        `verify of ${revision.rev} could not run (the replay ${record.variant} the edit): ${record.error.replace(/\.$/, "")}. ` +
          "Recorded as an error, not as a failed check: fix the cause (`relm doctor` checks the endpoint) and run it again",
      );
    }
    const { record } = result;
    const { with: withRun, without: withoutRun, workspace, summary, passed } = record;
    const gated = gates.length > 0;
    if (flags.json) io.stdout.write(`${JSON.stringify({ scope: store.scope, ...record })}\n`);
    else {
      const where =
        workspace.source === "checkpoint"
          ? `checkpoint ${workspace.commit?.slice(0, 12)}`
          : "a copy of its folder";
      io.stdout.write(
        `replayed ${plan.tasks.length} task(s) of session ${from} from ${where}` +
          `${gated ? `, gates: ${gates.join(" && ")}` : ", no gates"}, on ${model}\n` +
          `${comparison(revision.rev, withoutRun, withRun, gated)}\n${summary}\n`,
      );
    }
    return passed ? EXIT.done : EXIT.error;
  });
}
