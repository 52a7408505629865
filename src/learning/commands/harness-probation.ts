// A person's say over lessons on probation (docs/harness.md, "Probation"): `relm harness promote ENTRY`
// vouches for one (no verdict needed; the verdict so far is printed), `reject` takes one off probation,
// `pin` stops verdicts from acting on one.

import { EXIT } from "../../cli/exit-codes.js";
import { oneLine } from "../../config/text.js";
import { alreadyIn, alreadyPromotedLine, type Promoted, promoteEntries } from "../probation/promote.js";
import {
  byIdOrPrefix,
  type EntryState,
  formatEdits,
  type HarnessContext,
  HarnessStore,
  idMatches,
  logLine,
  VerdictLog,
} from "../store/index.js";
import { evaluateVerdicts } from "../verdicts/verdicts.js";
import { entryLookup, HarnessCliError, type HarnessIo, inHarness } from "./harness-cli.js";

/** The entry on probation `query` names; none or several is an error saying where to look. */
function onProbation(
  ctx: HarnessContext,
  query: string,
  entries: readonly EntryState[] = HarnessStore.of("probation", ctx).entries(),
): EntryState {
  return byIdOrPrefix(entries, query, {
    ...entryLookup("on probation in this project"),
    listing: "`relm harness list --scope probation` lists them (a session's own entry needs --session ID)",
  });
}

/**
 * The entry on probation `query` names, if it names any (several is an error naming them). One read of
 * the store: a promotion racing this one may take the entry off probation between two reads.
 */
function findOnProbation(ctx: HarnessContext, query: string): EntryState | undefined {
  const entries = HarnessStore.of("probation", ctx).entries();
  return idMatches(entries, query, (e) => e.id).length > 0 ? onProbation(ctx, query, entries) : undefined;
}

/** The verdict so far on the revision that carried the lesson forward last, as one line (nothing written). */
function verdictSoFar(ctx: HarnessContext, entry: EntryState): string {
  const carried = HarnessStore.of("probation", ctx)
    .revisions()
    .findLast((r) => r.carried && r.edits.some((e) => e.id === entry.id));
  const judged = evaluateVerdicts(ctx, { apply: false, scopes: ["probation"] }).find(
    (e) => e.revision.rev === carried?.rev,
  );
  return judged ? judged.judgement.summary : "no work judged since it was carried forward";
}

/** The entry `query` names in the `to` scope and the revision that added it there, if it is there. */
function promotedBefore(ctx: HarnessContext, query: string, to: "project" | "user") {
  const target = HarnessStore.of(to, ctx);
  const found = idMatches(target.entries(), query, (e) => e.id);
  const entry = found.length === 1 ? found[0] : undefined;
  const already = entry ? alreadyIn(target, [entry.id]) : undefined;
  return entry && already ? { id: entry.id, already } : undefined;
}

/** `relm harness promote ENTRY` without --session: a lesson on probation, on a person's word. */
export function promoteFromProbation(query: string, to: "project" | "user", io: HarnessIo): Promise<number> {
  return inHarness({}, io, (ctx) => {
    // Probation first, then the target: a promotion racing this one adds the entry to the target before
    // it leaves probation, so one of the two reads finds it. Gone from probation but in the target is
    // "promoted meanwhile" (a session's verdict, another promote), not "no entry"; still on probation
    // and already in the target, promoteEntries says so under the target's lock.
    const found = findOnProbation(ctx, query);
    const before = found ? undefined : promotedBefore(ctx, query, to);
    if (before) return printPromotion(io, { already: before.already }, before.id, to, "");
    const entry = found ?? onProbation(ctx, query);
    const source = HarnessStore.of("probation", ctx);
    const { revision } = source.find(entry.rev);
    const soFar = verdictSoFar(ctx, entry);
    const result = promoteEntries({
      ctx,
      source,
      revision,
      entries: [entry],
      to,
      author: "user",
      reason: `promote ${entry.id} from probation by hand (verdict so far: ${soFar.split(":")[0]})`,
      evidence: revision.evidence,
    });
    return printPromotion(io, result, entry.id, to, `verdict so far: ${soFar}\n`, " from probation");
  });
}

/**
 * What a promote by hand prints: the lesson already in `to` (nothing written), or the copy written and
 * `then`; why not, when neither. `from`: where the lesson came from, when the line says it.
 */
export function printPromotion(
  io: HarnessIo,
  result: Promoted,
  id: string,
  to: string,
  then: string,
  from = "",
) {
  if (result.already) io.stdout.write(alreadyPromotedLine(id, to, result.already));
  else if (!result.written) throw new HarnessCliError(`not promoted: ${result.refused}`);
  else
    io.stdout.write(
      `${formatEdits(result.written.edits)}\npromoted ${id}${from} to the ${to} scope as revision ${result.written.rev}\n${then}`,
    );
  return EXIT.done;
}

/** `relm harness reject ENTRY`: off probation, with the reason in the log. */
export function rejectCommand(query: string, flags: { reason?: string }, io: HarnessIo): Promise<number> {
  return inHarness({}, io, (ctx) => {
    const entry = onProbation(ctx, query);
    const why = flags.reason ? oneLine(flags.reason, 300) : "by hand";
    const { revision } = HarnessStore.of("probation", ctx).commit({
      intents: [{ op: "remove", id: entry.id, reason: `rejected: ${why}` }],
      author: "user",
      reason: `rejected ${entry.id} on probation: ${why}`,
      evidence: null,
    });
    io.stdout.write(
      `${formatEdits(revision?.edits ?? [])}\nrejected ${entry.id}: off probation as revision ${revision?.rev}; ` +
        `new sessions no longer start with it (\`relm harness revert ${revision?.rev}\` brings it back)\n`,
    );
    return EXIT.done;
  });
}

/** `relm harness pin ENTRY [--off]`: verdicts on it are still recorded, and no longer act on it. */
export function pinCommand(query: string, flags: { off?: boolean }, io: HarnessIo): Promise<number> {
  return inHarness({}, io, (ctx) => {
    const entry = onProbation(ctx, query);
    const log = new VerdictLog(HarnessStore.of("probation", ctx).location, ctx.home);
    const pinned = flags.off !== true;
    if (log.pinnedEntries().has(entry.id) === pinned) {
      io.stdout.write(`${entry.id} is ${pinned ? "already pinned" : "not pinned"}\n`);
      return EXIT.done;
    }
    log.append({ ...logLine("pin", entry.rev), entry: entry.id, pinned });
    io.stdout.write(
      pinned
        ? `pinned ${entry.id}: it stays on probation; verdicts are recorded but no longer promote, revert or retire it ` +
            `(\`relm harness pin ${entry.id} --off\` releases it)\n`
        : `released ${entry.id}: verdicts act on it again\n`,
    );
    return EXIT.done;
  });
}
