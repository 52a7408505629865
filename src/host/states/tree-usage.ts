import { closeSync, existsSync, openSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Usage } from "../../llm/types.js";
import { forEachLine } from "../../session/scan.js";

/** session/journal.ts's JOURNAL_FILE, named here so a listing does not load the journal writer. */
const JOURNAL_FILE = "journal.jsonl";

/** Tokens of a whole session tree, as a status line shows them. */
export interface UsageTotals {
  input: number;
  output: number;
  cached: number;
  cacheWrite: number;
}

/**
 * An event that carries spend: a model response, an llm() call, a compaction's summary call, and a
 * model request a budget stopped as it streamed (a `model_error` with the spend booked by the estimate).
 */
interface SpendEvent {
  type: string;
  usage?: Usage;
  cost?: number | null;
}

const SPENDING = new Set(["model_response", "llm_call", "compaction", "model_error"]);

/**
 * Token and cost totals of a session tree over its whole life: what every journal of the tree (the
 * root's and every descendant's, including work before a resume) says at host start, then each live
 * event as it happens. Whatever the budget of this process says, this is what was spent.
 */
export class UsageTally {
  readonly usage: UsageTotals = { input: 0, output: 0, cached: 0, cacheWrite: 0 };
  /** USD; null once any call had no known price. */
  cost: number | null = 0;

  /** The root agent's own model calls (its turns, as --max-turns counts them), as found by ofTree. */
  rootCalls = 0;

  /** The totals of the journals under `rootDir` (the session's folder) as they are on disk now. */
  static ofTree(rootDir: string): UsageTally {
    const tally = new UsageTally();
    for (const dir of journalDirs(rootDir))
      scanSpend(join(dir, JOURNAL_FILE), (event) => {
        tally.add(event);
        if (dir === rootDir && event.type === "model_response") tally.rootCalls += 1;
      });
    return tally;
  }

  /** The totals as a session's summary (state.json) holds them. */
  totals(): { tokens: number; cachedTokens: number; cacheWriteTokens: number; cost: number | null } {
    const { input, output, cached, cacheWrite } = this.usage;
    return { tokens: input + output, cachedTokens: cached, cacheWriteTokens: cacheWrite, cost: this.cost };
  }

  /** Counts one event of the tree's stream (only those that carry usage count). */
  add(event: SpendEvent): void {
    if (!SPENDING.has(event.type) || !event.usage) return;
    const u = event.usage;
    this.usage.input += u.inputTokens;
    this.usage.output += u.outputTokens;
    this.usage.cached += u.cachedInputTokens;
    this.usage.cacheWrite += u.cacheWriteTokens;
    const cost = event.cost ?? null;
    this.cost = this.cost === null || cost === null ? null : this.cost + cost;
  }
}

/** The folders of a session tree that hold a journal: the root's, then its sub-agents', depth first. */
export function journalDirs(dir: string): string[] {
  const dirs = existsSync(join(dir, JOURNAL_FILE)) ? [dir] : [];
  for (const child of listDirs(join(dir, "children")))
    dirs.push(...journalDirs(join(dir, "children", child)));
  return dirs;
}

/** The folder of descendant `id` anywhere under the session folder `rootDir`, if it has one. */
export function descendantDir(rootDir: string, id: string): string | undefined {
  const children = join(rootDir, "children");
  for (const child of listDirs(children)) {
    const dir = join(children, child);
    if (child === id) return dir;
    const deeper = descendantDir(dir, id);
    if (deeper) return deeper;
  }
  return undefined;
}

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * Calls `found` with each event of a journal that carries usage. Read in chunks and parsed only where a
 * line mentions usage, so a long journal costs one pass over its bytes, not one object per line.
 */
function scanSpend(path: string, found: (event: SpendEvent) => void): void {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return;
  }
  try {
    forEachLine(fd, 0, Number.POSITIVE_INFINITY, (line) => {
      if (!line.includes('"usage":')) return;
      try {
        const event = JSON.parse(line) as SpendEvent;
        if (SPENDING.has(event.type)) found(event);
      } catch {
        // A damaged line counts for nothing; the journal readers report it.
      }
    });
  } finally {
    closeSync(fd);
  }
}
