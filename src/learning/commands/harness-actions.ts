import { readFileSync, writeFileSync } from "node:fs";
import { EXIT } from "../../cli/exit-codes.js";
import { UsageError } from "../../config/errors.js";
import { oneLine } from "../../config/text.js";
import {
  checkCopy,
  checkEntry,
  checkIntent,
  type Entry,
  type EntryState,
  formatEdits,
  formatRevision,
  HarnessStore,
  type Intent,
  KINDS,
  loadHarness,
  revisionSummary,
} from "../store/index.js";
import { locateRevision, scopesToSearch } from "./find-revision.js";
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

const EXPORT_TAG = "relm-harness-export";
/** The export format `relm harness export` writes (the tag's value) and import reads. */
const EXPORT_VERSION = 1;

/** `relm harness add KIND CONTENT`: checked like a refinement's edit, without evidence. */
export function addCommand(
  kind: string,
  content: string,
  flags: ScopeFlags & { title?: string; reason?: string; hypothesis?: string },
  io: HarnessIo,
): Promise<number> {
  return guarded(io, () => {
    if (!(KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(`kind must be one of ${KINDS.join(", ")}, not "${kind}"`);
    }
    // A skill or a spec is known by its name, given as the title (a refinement's "title" field).
    if ((kind === "skill" || kind === "agent") && !flags.title?.trim()) {
      throw new UsageError(
        `a ${kind} needs its name: add --title NAME (e.g. relm harness add ${kind} "what it does" --title ${kind === "skill" ? "my_skill" : "reviewer"})`,
      );
    }
    const ctx = harnessContext(flags, io);
    const scope = flags.scope ?? "project";
    const store = HarnessStore.of(scope, ctx);
    const others = storesFor({}, ctx)
      .filter((s) => s.scope !== scope)
      .flatMap((s) => s.entries());
    const checked = checkIntent(
      {
        op: "add",
        kind,
        title: flags.title ?? "",
        content,
        reason: flags.reason,
        hypothesis: flags.hypothesis,
      },
      {
        state: store.state(),
        location: store.location,
        others,
        batch: [],
        requireEvidence: false,
        source: "user",
      },
    );
    if (!checked.ok) throw new HarnessCliError(`not added: ${checked.reason}`);
    const { revision, dropped } = store.commit({
      intents: [checked.intent],
      author: "user",
      reason: flags.reason ?? `relm harness add ${kind}`,
    });
    if (!revision)
      throw new HarnessCliError(`not added: ${dropped[0]?.reason ?? "an equal entry appeared meanwhile"}`);
    io.stdout.write(
      `${formatEdits(revision.edits)}\nadded to the ${scope} scope as revision ${revision.rev}\n`,
    );
    return EXIT.done;
  });
}

export function rmCommand(
  entryId: string,
  flags: ScopeFlags & { reason?: string },
  io: HarnessIo,
): Promise<number> {
  return inHarness(flags, io, (ctx) => {
    const entry = findEntry(storesFor(flags, ctx), entryId);
    const { revision } = HarnessStore.of(entry.scope, ctx).commit({
      intents: [{ op: "remove", id: entry.id, reason: flags.reason }],
      author: "user",
      reason: flags.reason ?? `relm harness rm ${entry.id}`,
    });
    io.stdout.write(
      `${formatEdits(revision?.edits ?? [])}\nremoved from the ${entry.scope} scope as revision ${revision?.rev}` +
        ` (relm harness revert ${revision?.rev} brings it back)\n`,
    );
    return EXIT.done;
  });
}

export function listCommand(flags: ScopeFlags & { json?: boolean }, io: HarnessIo): Promise<number> {
  return inHarness(flags, io, (ctx) => {
    const entries = storesFor(flags, ctx).flatMap((s) => s.entries());
    for (const e of entries)
      io.stdout.write(flags.json ? `${JSON.stringify(e)}\n` : entryLine(e, `uses ${e.uses}`));
    if (!flags.json && entries.length === 0) io.stdout.write("no harness entries\n");
    return EXIT.done;
  });
}

/** An entry as `list` and `log --stale` print it: `what` is the column after its kind. */
const entryLine = (e: EntryState, what: string) =>
  `${e.id}  ${e.scope}  ${e.kind}  ${what}  ${e.title ? `${e.title}: ` : ""}${oneLine(e.content, 90)}\n`;

export function logCommand(
  flags: ScopeFlags & { stale?: boolean; json?: boolean },
  io: HarnessIo,
): Promise<number> {
  return inHarness(flags, io, (ctx) => {
    if (flags.stale) return staleReport(storesFor(flags, ctx), ctx, flags, io);
    // Without --scope, the session scopes of this project's sessions too (newest first): learning
    // passes write there.
    for (const { store, where, session } of scopesToSearch(flags, ctx)) {
      const revisions = store.revisions();
      if (flags.json) {
        const tag = session ? { scope: store.scope, session } : { scope: store.scope };
        for (const r of revisions) io.stdout.write(`${JSON.stringify({ ...tag, ...r })}\n`);
        continue;
      }
      io.stdout.write(`${where} (${store.logPath}): ${revisions.length} revision(s)\n`);
      for (const r of revisions) io.stdout.write(`  ${revisionSummary(r)}\n`);
    }
    return EXIT.done;
  });
}

function staleReport(
  stores: ReturnType<typeof storesFor>,
  ctx: ReturnType<typeof harnessContext>,
  flags: ScopeFlags & { json?: boolean },
  io: HarnessIo,
): number {
  // Prompts are in effect whenever they are in the prompt; only lessons and tools have a use to count.
  const scopes = new Set(stores.map((s) => s.scope));
  const stale = stores.flatMap((s) => s.entries()).filter((e) => e.kind !== "prompt" && e.uses === 0);
  const folders = loadHarness(ctx).skills.filter((s) => !s.entryId && s.uses === 0 && scopes.has(s.scope));
  for (const e of stale)
    io.stdout.write(
      flags.json ? `${JSON.stringify(e)}\n` : entryLine(e, `created ${e.created.slice(0, 10)}`),
    );
  for (const s of folders) {
    if (flags.json)
      io.stdout.write(`${JSON.stringify({ skillFolder: s.dir, name: s.name, scope: s.scope })}\n`);
    else io.stdout.write(`skill folder ${s.name}  ${s.scope}  ${s.dir}\n`);
  }
  if (!flags.json && stale.length + folders.length === 0)
    io.stdout.write("every memory, skill and spec has been used\n");
  else if (!flags.json)
    io.stdout.write("never used; `relm harness rm ENTRY` prunes one (and can be reverted)\n");
  return EXIT.done;
}

export function showCommand(
  what: "show" | "diff",
  rev: string,
  flags: ScopeFlags,
  io: HarnessIo,
): Promise<number> {
  return inHarness(flags, io, (ctx) => {
    const { store, revision, session, where } = locateRevision(flags, ctx, rev);
    if (what === "show")
      io.stdout.write(
        `scope:    ${store.scope}${session ? ` (session ${session})` : ""}\n${formatRevision(revision)}\n`,
      );
    else io.stdout.write(`in the ${where}\n${revisionSummary(revision)}\n${formatEdits(revision.edits)}\n`);
    return EXIT.done;
  });
}

export function revertCommand(
  rev: string,
  flags: ScopeFlags & { force?: boolean },
  io: HarnessIo,
): Promise<number> {
  return inHarness(flags, io, (ctx) => {
    const { store, revision, where } = locateRevision(flags, ctx, rev);
    const undo = store.revert(revision.rev, { force: flags.force, author: "user" });
    io.stdout.write(
      `${formatEdits(undo.edits)}\nreverted ${revision.rev} in the ${where} as revision ${undo.rev}\n`,
    );
    return EXIT.done;
  });
}

export function exportCommand(
  ids: string[],
  flags: ScopeFlags & { output?: string },
  io: HarnessIo,
): Promise<number> {
  return inHarness(flags, io, (ctx) => {
    const scope = flags.scope ?? (flags.session ? "session" : "project");
    const store = HarnessStore.of(scope, ctx);
    const entries = ids.length === 0 ? store.entries() : ids.map((id) => findEntry([store], id));
    const plain: Entry[] = entries.map(({ scope: _s, rev: _r, uses: _u, ...entry }) => entry);
    const text = `${JSON.stringify({ [EXPORT_TAG]: EXPORT_VERSION, scope, entries: plain }, null, 2)}\n`;
    if (flags.output) writeFileSync(flags.output, text, { mode: 0o600 });
    else io.stdout.write(text);
    if (flags.output)
      io.stderr.write(
        `exported ${plain.length} entr${plain.length === 1 ? "y" : "ies"} to ${flags.output}\n`,
      );
    return EXIT.done;
  });
}

/** How messages name what `relm harness import FILE` read: `-` is standard input, which "- is …" did not say. */
function importSource(file: string): string {
  return file === "-" ? "standard input" : file;
}

function readExport(file: string): { scope?: string; entries: unknown[] } {
  const source = importSource(file);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file === "-" ? 0 : file, "utf8"));
  } catch (error) {
    throw new HarnessCliError(`${source} is not a harness export (${(error as Error).message})`);
  }
  const data = parsed as { [EXPORT_TAG]?: number; scope?: string; entries?: unknown };
  // The tag is the format's version: a later one is an export this relm is too old for, not no export.
  const version = data?.[EXPORT_TAG];
  if (typeof version === "number" && version > EXPORT_VERSION) {
    throw new HarnessCliError(
      `${source} was made by a newer relm (harness export format ${version}; this relm reads format ${EXPORT_VERSION}): upgrade relm to import it`,
    );
  }
  if (version !== EXPORT_VERSION || !Array.isArray(data.entries)) {
    throw new HarnessCliError(`${source} is not a harness export: write one with \`relm harness export\``);
  }
  return { scope: data.scope, entries: data.entries };
}

export function importCommand(file: string, flags: ScopeFlags, io: HarnessIo): Promise<number> {
  return inHarness(flags, io, (ctx) => {
    const scope = flags.scope ?? "project";
    const data = readExport(file);
    const store = HarnessStore.of(scope, ctx);
    const state = store.state();
    const intents: Intent[] = [];
    const problems: string[] = [];
    for (const [i, raw] of data.entries.entries()) {
      const read = checkEntry(raw);
      if ("problem" in read) {
        problems.push(`${importSource(file)}, entry ${i + 1}: ${read.problem}`);
        continue;
      }
      const e = read.entry;
      const checked = checkCopy(e, { state, location: store.location, others: [], batch: intents });
      if (checked.ok) intents.push(checked.intent);
      else problems.push(`${e.id}: ${checked.reason}`);
    }
    const { revision, dropped } = intents.length
      ? store.commit({ intents, author: "user", reason: `import from the ${data.scope ?? "?"} scope` })
      : { revision: undefined, dropped: [] };
    for (const d of dropped) problems.push(`${d.intent.op === "add" ? d.intent.id : ""}: ${d.reason}`);
    if (revision) {
      io.stdout.write(
        `${formatEdits(revision.edits)}\nimported ${revision.edits.length} entr${revision.edits.length === 1 ? "y" : "ies"} into the ${scope} scope as revision ${revision.rev}\n`,
      );
    }
    for (const p of problems) io.stderr.write(`not imported: ${p}\n`);
    if (!revision && problems.length === 0) io.stdout.write("nothing to import\n");
    return revision || problems.length === 0 ? EXIT.done : EXIT.error;
  });
}
