// Naming a harness entry or revision the way a person types it: its id, or enough of its start to
// be unique (`relm harness list/log` show ids in full; a few characters are enough to name one). One rule
// for every lookup: an exact id wins over prefixes, a prefix must name one item. The two failures read
// alike wherever they come from:
//   no entry "mem-x" in the project, user scope(s)[; how to list them]                    (exit 1)
//   entry "mem-x" is ambiguous: mem-x1 (project), mem-x2 (user)[; how to narrow it]      (exit 2)
//   entry "mem-x" is in more than one place: mem-x (project), mem-x (user)[; how to say which]  (exit 2)
// Both carry the code "not_found", which a kernel's call turns into a LookupError (python/relm/agents.py).

import { UsageError, UserError } from "../../config/errors.js";

/** An id or prefix that names nothing where it was looked for. */
class NoSuchIdError extends UserError {
  override name = "NoSuchIdError";
  readonly code = "not_found";
}

/** A prefix that names several items: bad input, so exit 2 like any usage error. */
class AmbiguousIdError extends UsageError {
  override name = "AmbiguousIdError";
  readonly code = "not_found";
}

/** What a lookup is of, and how its two failures are worded. */
export interface IdLookup<T> {
  /** What the user named: "entry", "revision". */
  noun: string;
  id(item: T): string;
  /** Where it looked, as the not-found message says it: "in the project scope", "on probation in this project". */
  where: string;
  /** One candidate as an ambiguity lists it, e.g. with its scope (default: its id). */
  shown?(item: T): string;
  /** What to do about an ambiguous prefix: "give more characters or --scope". */
  narrow?: string;
  /**
   * What tells apart items that have the very id asked for (an entry copied into a second scope), where
   * more characters cannot help: "say which with --scope user or --scope project". Without it nothing
   * is suggested.
   */
  apart?(items: readonly T[]): string;
  /** Where to see the ids when none matched: "`relm harness log` lists them". */
  listing?: string;
}

/** The items `query` names: those whose id it is, else those whose id begins with it (none, one or several). */
export function idMatches<T>(items: readonly T[], query: string, id: (item: T) => string): T[] {
  const exact = items.filter((item) => id(item) === query);
  return exact.length > 0 ? exact : items.filter((item) => id(item).startsWith(query));
}

/** The one item `query` names (see idMatches); none or several is a user error worded as above. */
export function byIdOrPrefix<T>(items: readonly T[], query: string, lookup: IdLookup<T>): T {
  const matches = idMatches(items, query, lookup.id);
  const [only] = matches;
  if (only !== undefined && matches.length === 1) return only;
  if (matches.length === 0) {
    throw new NoSuchIdError(`no ${lookup.noun} "${query}" ${lookup.where}${hint(lookup.listing)}`);
  }
  const listed = matches.map((item) => (lookup.shown ? lookup.shown(item) : lookup.id(item))).join(", ");
  if (matches.every((item) => lookup.id(item) === query)) {
    throw new AmbiguousIdError(
      `${lookup.noun} "${query}" is in more than one place: ${listed}${hint(lookup.apart?.(matches))}`,
    );
  }
  throw new AmbiguousIdError(`${lookup.noun} "${query}" is ambiguous: ${listed}${hint(lookup.narrow)}`);
}

function hint(text: string | undefined): string {
  return text ? `; ${text}` : "";
}
