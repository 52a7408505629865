// `relm harness verify REV`: the replay check. The task(s) of the session an edit was learnt from are run
// twice, without and with the edit, on the same model, under a budget, each in a scratch copy of the
// files the session started from; the difference in gate result, turns and tokens is reported and
// recorded on the revision (its scope's verdicts.jsonl). A promotion from an autonomous run needs a pass.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT } from "../../cli/exit-codes.js";
import { parseLimits } from "../../cli/setup.js";
import { resolveConfig } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import { JOURNAL_FILE, resolveSessionId, sessionDir, sessionsDir } from "../../session/index.js";
import { VERDICT_LOG_VERSION, VerdictLog, type VerifyRecord, type VerifyRun } from "../store/index.js";
import { provenanceOf, replayPlan } from "../verdicts/verify-plan.js";
import { locateRevision } from "./find-revision.js";
import { guarded, HarnessCliError, type HarnessIo, harnessContext, type ScopeFlags } from "./harness-cli.js";
import { replayOnce } from "./verify-replay.js";

interface VerifyFlags extends ScopeFlags {
  from?: string;
  gate?: string[];
  model?: string;
  maxTurns?: string;
  maxTokens?: string;
  maxCost?: string;
  maxTime?: string;
  keep?: boolean;
  json?: boolean;
}

/** Each replay's budget unless flags say otherwise. */
const VERIFY_DEFAULTS = { maxTurns: "30", maxTime: "15m" };

/**
 * Passed: with the edit the gates passed (without gates: the run ended done) and it took no more turns
 * than without it — or the run without the edit did not get there at all.
 */
function verifyPassed(withEdit: VerifyRun, without: VerifyRun, gated: boolean): boolean {
  const reached = (r: VerifyRun) => (gated ? r.gatesPassed === true : r.outcome === "done");
  if (!reached(withEdit)) return false;
  return !reached(without) || withEdit.turns <= without.turns;
}

function describeRun(r: VerifyRun, gated: boolean): string {
  const gate = gated ? (r.gatesPassed ? "gates passed" : "gates failing") : r.outcome;
  return `${gate} in ${r.turns} turn${r.turns === 1 ? "" : "s"} (${r.tokens.toLocaleString("en-US")} tokens)`;
}

const signed = (n: number) => (n > 0 ? `+${n.toLocaleString("en-US")}` : n.toLocaleString("en-US"));

function table(rev: string, without: VerifyRun, withEdit: VerifyRun, gated: boolean): string {
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
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]?.length ?? 0)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i < 3 ? cell.padEnd(widths[i] as number) : cell))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

export function verifyCommand(query: string, flags: VerifyFlags, io: HarnessIo): Promise<number> {
  return guarded(io, async () => {
    const limits = {
      maxTurns: flags.maxTurns ?? VERIFY_DEFAULTS.maxTurns,
      maxTime: flags.maxTime ?? VERIFY_DEFAULTS.maxTime,
      maxTokens: flags.maxTokens,
      maxCost: flags.maxCost,
    };
    parseLimits(limits);
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
    const root = mkdtempSync(join(tmpdir(), "relm-verify-"));
    const runs: Partial<Record<"with" | "without", Awaited<ReturnType<typeof replayOnce>>>> = {};
    try {
      for (const variant of ["without", "with"] as const) {
        io.stderr.write(
          `replaying ${plan.tasks.length} task(s) of session ${from} ${variant} ${revision.rev} on ${model}…\n`,
        );
        const request = {
          real: ctx,
          scope: store.scope,
          revision,
          plan,
          gates,
          config,
          model,
          limits,
          env: io.env,
        };
        runs[variant] = await replayOnce({ ...request, dir: join(root, variant) }, variant);
      }
    } finally {
      if (flags.keep) io.stderr.write(`scratch copies and their sessions kept in ${root}\n`);
      else rmSync(root, { recursive: true, force: true });
    }
    const { with: withEdit, without } = runs as Required<typeof runs>;
    const gated = gates.length > 0;
    const passed = verifyPassed(withEdit, without, gated);
    const summary =
      `verify ${passed ? "passed" : "failed"}: with ${revision.rev} ${describeRun(withEdit, gated)}; ` +
      `without it ${describeRun(without, gated)}`;
    const { workspace: _w, ...withRun } = withEdit;
    const { workspace, ...withoutRun } = without;
    const record: VerifyRecord = {
      v: VERDICT_LOG_VERSION,
      type: "verify",
      t: new Date().toISOString(),
      rev: revision.rev,
      passed,
      summary,
      session: from,
      model,
      tasks: plan.tasks,
      gates,
      workspace,
      budget: parseLimits(limits),
      with: withRun,
      without: withoutRun,
    };
    new VerdictLog(store.location, ctx.home).append(record);
    if (flags.json) io.stdout.write(`${JSON.stringify({ scope: store.scope, ...record })}\n`);
    else {
      const where =
        workspace.source === "checkpoint"
          ? `checkpoint ${workspace.commit?.slice(0, 12)}`
          : "a copy of its folder";
      io.stdout.write(
        `replayed ${plan.tasks.length} task(s) of session ${from} from ${where}` +
          `${gated ? `, gates: ${gates.join(" && ")}` : ", no gates"}, on ${model}\n` +
          `${table(revision.rev, withoutRun, withRun, gated)}\n${summary}\n`,
      );
    }
    return passed ? EXIT.done : EXIT.error;
  });
}
