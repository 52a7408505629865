// Finding a revision by id without being told its scope: `relm harness log/show/diff/revert/verify`.
// Learning passes write to the session scope of the session that learned, so a revision named in a
// `✎ learned …` line lives in a session's folder, not in the project's; these commands look there too
// (the sessions of this project only, newest first) and say where they found it.

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { JOURNAL_FILE, readJournalHeader, sessionsDir } from "../../session/index.js";
import {
  byIdOrPrefix,
  type HarnessContext,
  HarnessStore,
  openStores,
  projectRoot,
  REVISIONS_FILE,
  type Revision,
  scopeLocation,
} from "../store/index.js";
import { type ScopeFlags, storesFor } from "./harness-cli.js";

/** A scope to look in: its store, the context that opens it, and how to name it to a person. */
interface ScopeToSearch {
  store: HarnessStore;
  ctx: HarnessContext;
  /** "project scope", "session scope of session 4f8k2m1a". */
  where: string;
  session?: string;
}

interface FoundRevision extends ScopeToSearch {
  revision: Revision;
}

function named(store: HarnessStore, ctx: HarnessContext): ScopeToSearch {
  if (store.scope !== "session" || !ctx.sessionDir) return { store, ctx, where: `${store.scope} scope` };
  const session = ctx.sessionDir.split(/[\\/]/).at(-1) as string;
  return { store, ctx, where: `session scope of session ${session}`, session };
}

/**
 * The session scopes of the sessions of `ctx`'s project that have a revision log, newest first. A
 * session's project is the one its working directory belongs to (its journal's header says which).
 */
function projectSessionScopes(ctx: HarnessContext): ScopeToSearch[] {
  const dir = sessionsDir(ctx.home);
  if (!existsSync(dir)) return [];
  const root = projectRoot(ctx.cwd);
  const found: { created: string; scope: ScopeToSearch }[] = [];
  for (const id of readdirSync(dir)) {
    const sessionDir = join(dir, id);
    const location = scopeLocation("session", { ...ctx, sessionDir });
    if (!existsSync(join(location.dir, REVISIONS_FILE))) continue;
    let header: ReturnType<typeof readJournalHeader>;
    try {
      header = readJournalHeader(join(sessionDir, JOURNAL_FILE));
    } catch {
      continue; // no readable journal: no project to match
    }
    if (projectRoot(header.cwd) !== root) continue;
    const store = new HarnessStore(location);
    found.push({ created: header.created, scope: named(store, { ...ctx, sessionDir }) });
  }
  found.sort((a, b) => b.created.localeCompare(a.created));
  return found.map((f) => f.scope);
}

/**
 * The scopes a command without --scope looks in: those visible from `ctx` (user, project, and the
 * session named by --session), and without --session the session scopes of this project's sessions.
 */
export function scopesToSearch(flags: ScopeFlags, ctx: HarnessContext): ScopeToSearch[] {
  if (flags.scope) return storesFor(flags, ctx).map((s) => named(s, ctx));
  const visible = openStores(ctx).map((s) => named(s, ctx));
  if (flags.session) return visible;
  return [...visible, ...projectSessionScopes(ctx)];
}

/**
 * A revision by id or unique prefix in the scopes a command looks in: an exact id wins over prefixes;
 * a prefix must name one revision among all of them, else the candidates are listed.
 */
export function locateRevision(flags: ScopeFlags, ctx: HarnessContext, query: string): FoundRevision {
  const scopes = scopesToSearch(flags, ctx);
  const found = scopes.flatMap((scope) =>
    scope.store.revisions().map((revision) => ({ ...scope, revision })),
  );
  // `relm harness log` shows each revision's number in its scope as `#N`: that names it too, exactly
  // (never as a prefix: #1 is not #12), once per scope that has so many.
  const seq = /^#(\d+)$/.exec(query)?.[1];
  const all = seq === undefined ? found : found.filter((m) => m.revision.seq === Number(seq));
  const sessions = scopes.filter((s) => s.session).length;
  const where = scopes
    .filter((s) => !s.session)
    .map((s) => s.store.scope)
    .join(", ");
  const more = sessions > 0 ? ` and the session scopes of ${sessions} session(s) of this project` : "";
  return byIdOrPrefix(all, query, {
    noun: "revision",
    id: (m) => (seq === undefined ? m.revision.rev : `#${m.revision.seq}`),
    where: `in the ${where || "given"} scope(s)${more}`,
    shown: (m) => `${m.revision.rev} (${m.where})`,
    narrow: "give more characters, or --scope SCOPE / --session ID",
    apart: () => "say which with --scope SCOPE / --session ID",
    listing: "`relm harness log` lists them",
  });
}
