// What a scope may hold, per kind (docs/harness.md, "The prompt block"): how many entries, how long
// one may be, and how many characters of content all of them together. The prompt block shows at most
// this much of each kind, and every writer of a scope is held to it: a check before proposing
// (validate.ts) and a last guard under the store's lock (store.ts), so no path can write past it.

import { basename, dirname } from "node:path";
import { type Current, entriesOf } from "./state.js";
import { type Entry, type EntryKind, KINDS, type ScopeLocation } from "./types.js";

/** Per kind: how many entries a scope may hold, how long one may be, and how much of them in all. */
export const LIMITS: Record<EntryKind, { count: number; chars: number; total: number }> = {
  prompt: { count: 8, chars: 1200, total: 4000 },
  memory: { count: 30, chars: 500, total: 6000 },
  skill: { count: 40, chars: 300, total: 5000 },
  agent: { count: 10, chars: 1000, total: 3000 },
};

/** How many entries of `kind`, and how many characters of content, `entries` hold. */
export function usageOf(entries: Iterable<Entry>, kind: EntryKind): { count: number; chars: number } {
  let count = 0;
  let chars = 0;
  for (const e of entries) {
    if (e.kind !== kind) continue;
    count++;
    chars += e.content.length;
  }
  return { count, chars };
}

const n = (x: number) => x.toLocaleString("en-US");

/** The command that makes room in a scope, for messages: a session's scope is named by its id. */
export function roomHint(location: Pick<ScopeLocation, "scope" | "dir">): string {
  const where =
    location.scope === "session"
      ? `--session ${basename(dirname(location.dir))}`
      : `--scope ${location.scope}`;
  return `make room with \`relm harness rm ENTRY ${where}\` (\`relm harness list ${where}\` shows them)`;
}

/**
 * Why adding `added` more entries of `kind`, with `grow` more characters of content, would take a scope
 * past its limits, or undefined when it fits. `now` is what the scope holds before.
 */
export function overLimit(
  kind: EntryKind,
  scopeName: string,
  now: { count: number; chars: number },
  change: { added: number; grow: number },
  hint: string,
): string | undefined {
  const { count, total } = LIMITS[kind];
  if (change.added > 0 && now.count + change.added > count) {
    return (
      `the ${scopeName} scope would hold ${n(now.count + change.added)} ${kind} entries, over the ${count} ` +
      `it may hold (${n(now.count)} now); ${hint}`
    );
  }
  const after = now.chars + change.grow;
  if (change.grow > 0 && after > total) {
    return (
      `the ${scopeName} scope's ${kind} entries would hold ${n(after)} characters, over the ${n(total)} ` +
      `a scope may hold of ${kind} entries in all (${n(now.chars)} now); ${hint}`
    );
  }
  return undefined;
}

/**
 * The last guard of every write (under the store's lock): an entry longer than its kind allows, or a
 * kind that grew past its limits between `before` and `after`. A scope already over (written before the
 * limits were kept) may still shrink or change without growing.
 */
export function limitViolation(
  before: Current,
  after: Current,
  location: Pick<ScopeLocation, "scope" | "dir">,
): string | undefined {
  for (const [id, { entry }] of after) {
    const old = before.get(id)?.entry;
    const limit = LIMITS[entry.kind]?.chars;
    if (limit !== undefined && entry.content.length > limit && entry.content !== old?.content) {
      return `${entry.kind} ${id} would be ${n(entry.content.length)} characters long; a ${entry.kind} may have at most ${n(limit)}`;
    }
  }
  for (const kind of KINDS) {
    const was = usageOf(entriesOf(before), kind);
    const is = usageOf(entriesOf(after), kind);
    const problem = overLimit(
      kind,
      location.scope,
      was,
      { added: Math.max(0, is.count - was.count), grow: is.chars - was.chars },
      roomHint(location),
    );
    if (problem) return problem;
  }
  return undefined;
}
