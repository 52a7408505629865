// `relm harness stats` (per-entry use, outcomes and verdicts; it runs the evaluation, so a regression it
// finds is reverted) and `relm harness promote ENTRY` (a session's lesson into the project, only with
// evidence that it helped, and after a passing replay check when it was learnt in an autonomous run).

import { EXIT } from "../../cli/exit-codes.js";
import { table } from "../../cli/table.js";
import { UsageError } from "../../config/errors.js";
import { carriedFrom, sessionProject } from "../probation/carry.js";
import { promoteEntries } from "../probation/promote.js";
import { type EntryState, type HarnessContext, HarnessStore, VerdictLog } from "../store/index.js";
import { entryOutcomes } from "../verdicts/verdict-stats.js";
import { fixed } from "../verdicts/verdict-windows.js";
import { type Evaluated, evaluateVerdicts } from "../verdicts/verdicts.js";
import { provenanceOf, ranAutonomously } from "../verdicts/verify-plan.js";
import {
  findEntry,
  guarded,
  HarnessCliError,
  type HarnessIo,
  harnessContext,
  inHarness,
  type ScopeFlags,
  storesFor,
} from "./harness-cli.js";
import { describeLesson, lessonRow } from "./harness-lessons.js";
import { printPromotion } from "./harness-probation.js";

/** What a verdict did, as the tail of its line (the first that applies). */
function actionOf(v: Evaluated): string {
  const already = v.alreadyPromoted;
  return (
    [
      v.promoted && ` — promoted to the project scope as ${v.promoted}`,
      already && ` — already promoted to the project scope as ${already.revision} (by ${already.by})`,
      v.retired && ` — retired as ${v.reverted}: not shown to help`,
      v.reverted && ` — reverted as ${v.reverted}`,
      v.refused && ` — not reverted: ${v.refused}`,
      v.pinned && " — pinned, left as it is",
      v.waiting && ` — stays on probation: ${v.waiting}`,
    ].find(Boolean) || ""
  );
}

function verdictWord(e: Evaluated | undefined): string {
  if (!e) return "–";
  const v = e.judgement.verdict;
  if (e.retired) return "retired";
  if (e.reverted) return `${v}, reverted`;
  return e.judgement.final ? v : `${v}${v === "pending" ? "" : " (so far)"}`;
}

export function statsCommand(
  flags: ScopeFlags & { json?: boolean; dryRun?: boolean },
  io: HarnessIo,
): Promise<number> {
  return inHarness(flags, io, (ctx) => {
    const evaluated = evaluateVerdicts(ctx, {
      apply: !flags.dryRun,
      scopes: flags.scope ? [flags.scope] : undefined,
    });
    const byRev = new Map(evaluated.map((e) => [`${e.scope}:${e.revision.rev}`, e]));
    const judgedOf = (e: EntryState) => byRev.get(`${e.scope}:${e.rev}`);
    const stores = storesFor(flags, ctx);
    const entries = stores.flatMap((s) => s.entries());
    const outcomes = entryOutcomes(ctx, entries);
    const storeOf = new Map(stores.map((s) => [s.scope, s]));
    const lessonOf = (e: EntryState) => {
      const store = storeOf.get(e.scope);
      return store ? lessonRow(ctx.home, e, store, outcomes.get(e.id), judgedOf(e)) : undefined;
    };
    if (flags.json) {
      for (const e of entries) {
        const v = judgedOf(e);
        io.stdout.write(
          `${JSON.stringify({
            type: "entry",
            id: e.id,
            scope: e.scope,
            kind: e.kind,
            title: e.title,
            uses: e.uses,
            rev: e.rev,
            hypothesis: v?.revision.edits.find((x) => x.id === e.id)?.hypothesis ?? null,
            outcomes: outcomes.get(e.id),
            ...lessonOf(e),
            verdict: v
              ? { verdict: v.judgement.verdict, final: v.judgement.final, summary: v.judgement.summary }
              : null,
          })}\n`,
        );
      }
      for (const v of evaluated) {
        io.stdout.write(
          `${JSON.stringify({
            type: "verdict",
            scope: v.scope,
            rev: v.revision.rev,
            hypotheses: v.hypotheses,
            ...v.judgement,
            reverted: v.reverted ?? null,
            refused: v.refused ?? null,
            ...(v.scope === "probation"
              ? {
                  promoted: v.promoted ?? null,
                  retired: v.retired ?? false,
                  waiting: v.waiting ?? null,
                  pinned: v.pinned ?? false,
                }
              : {}),
          })}\n`,
        );
      }
      return EXIT.done;
    }
    if (entries.length === 0) io.stdout.write("no harness entries\n");
    else {
      const rows = [
        [
          "ENTRY",
          "SCOPE",
          "KIND",
          "USES",
          "IN FORCE",
          "GATES GREEN",
          "TURNS→GREEN",
          "CELLS FAILED",
          "VERDICT",
          "STATE",
        ],
      ];
      for (const e of entries) {
        const o = outcomes.get(e.id);
        rows.push([
          e.id,
          e.scope,
          e.kind,
          String(e.uses),
          `${o?.sessions ?? 0} session(s)`,
          o && o.attempts > 0 ? `${o.green}/${o.attempts}` : "–",
          fixed(o?.turnsToGreen ?? null),
          o && o.cells > 0 ? `${o.failedCells}/${o.cells}` : "–",
          verdictWord(judgedOf(e)),
          lessonOf(e)?.short ?? "in force",
        ]);
      }
      io.stdout.write(`${table(rows)}\n`);
      io.stdout.write("\nlessons (where each came from, where it was in force, what it did):\n");
      for (const e of entries) {
        const row = lessonOf(e);
        if (!row) continue;
        const lines = describeLesson(e, row, outcomes.get(e.id), judgedOf(e));
        io.stdout.write(`${lines.map((l) => `  ${l}`).join("\n")}\n`);
      }
    }
    const judged = evaluated.filter((v) => v.judgement.verdict !== "pending" || v.hypotheses.length > 0);
    if (judged.length > 0)
      io.stdout.write("\nverdicts (the work after each edit against the work before it):\n");
    for (const v of judged) {
      io.stdout.write(`  ${v.revision.rev} (${v.scope}) ${v.judgement.summary}${actionOf(v)}\n`);
      for (const h of v.hypotheses) io.stdout.write(`    hypothesis: ${h}\n`);
    }
    if (flags.dryRun) io.stdout.write("dry run: no verdict recorded, nothing reverted\n");
    return EXIT.done;
  });
}

/**
 * Where a session's lesson not yet shown to help goes on: its copy on probation, which the project's
 * next sessions start with and whose verdicts promote or revert it (nothing when it was reverted).
 */
function onProbationHint(
  ctx: HarnessContext & { sessionDir: string },
  rev: string,
  reverted?: string,
): string {
  if (reverted) return "";
  const copy = carriedFrom(HarnessStore.of("probation", sessionProject(ctx)), rev).at(-1);
  return copy
    ? `; it is on probation in this project (revision ${copy.rev}): the next sessions start with it and their verdicts promote or revert it (\`relm harness stats --scope probation\`)`
    : "";
}

export function promoteCommand(
  query: string,
  // --to is one of these two: its option lists them as its only choices.
  flags: ScopeFlags & { to?: "project" | "user" },
  io: HarnessIo,
): Promise<number> {
  const to = flags.to ?? "project";
  if (!flags.session)
    return import("./harness-probation.js").then((m) => m.promoteFromProbation(query, to, io));
  return guarded(io, () => {
    const ctx = harnessContext(flags, io);
    if (!ctx.sessionDir) throw new UsageError("promote moves a session's entry: add --session ID");
    const source = HarnessStore.of("session", ctx);
    const entry = findEntry([source], query);
    const { revision } = source.find(entry.rev);
    const [judged] = evaluateVerdicts(ctx, { apply: true, scopes: ["session"] }).filter(
      (e) => e.revision.rev === revision.rev,
    );
    const verdict = judged?.judgement;
    if (!verdict || judged?.reverted || verdict.verdict !== "improved") {
      const why = judged?.reverted
        ? `it was reverted as ${judged.reverted}: ${verdict?.summary}`
        : verdict
          ? verdict.summary
          : "no work has been judged since it was made";
      throw new HarnessCliError(
        `not promoted: no evidence that ${entry.id} (revision ${revision.rev}) helped: ${why}${onProbationHint({ ...ctx, sessionDir: ctx.sessionDir }, revision.rev, judged?.reverted)}`,
      );
    }
    const session = provenanceOf(revision) ?? (ctx.sessionDir.split("/").at(-1) as string);
    const log = new VerdictLog(source.location, ctx.home);
    const verify = log.latest(revision.rev, "verify");
    if (ranAutonomously(ctx.home, session) && !verify?.passed) {
      // A replay that could not run (verify_error) is no check: neither a pass nor a failure.
      const error = log.latest(revision.rev, "verify_error");
      const unrun =
        error && (!verify || error.t > verify.t) ? ` (the last attempt could not run: ${error.error})` : "";
      throw new HarnessCliError(
        `not promoted: ${revision.rev} was learnt in an autonomous run (session ${session}), so it needs a passing replay check first: ` +
          `relm harness verify ${revision.rev} --session ${session}` +
          (unrun || (verify ? ` (the last one failed: ${verify.summary})` : "")),
      );
    }
    const result = promoteEntries({
      ctx,
      source,
      revision,
      entries: [entry],
      to,
      author: "user",
      reason: `promote ${entry.id} from session ${session}: ${verdict.summary.split(":")[0]}`,
      evidence: revision.evidence,
      verdict: {
        rev: revision.rev,
        scope: "session",
        session,
        verdict: "improved",
        evidence: verdict.summary,
        ...(verify?.passed ? { verify: { time: verify.t, summary: verify.summary } } : {}),
      },
    });
    const evidence = `evidence: ${verdict.summary}\n${verify?.passed ? `${verify.summary}\n` : ""}`;
    return printPromotion(io, result, entry.id, to, evidence);
  });
}
