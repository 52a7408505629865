// The model calls of one subtree of a session, for its plot (issue 25, "plots per subtree"): every
// journal under the agent's folder (its own, its children's at any depth), each model response with when
// it came, its tokens (cached input apart) and cost, and which agent made it. Read from the journals,
// not from a page's events: a page opened after the night's run has only the root's events, and a
// child's model calls are journaled in the child's own journal.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { JOURNAL_FILE, readJournal, sessionDir } from "../session/index.js";
import { childDir } from "./child-stream.js";
import { type SubtreeUsage, type UsagePoint, usagePoint } from "./usage.js";

/** Deeper than this is not read (as childDir looks no deeper). */
const MAX_DEPTH = 12;
/** Journals whose calls are kept between looks (a plot asks every 2 s; a tree can have thousands). */
const MAX_CACHED = 20_000;

/** The subtree of `agent` (undefined: the whole session), or undefined when there is no such sub-agent. */
export function subtreeUsage(home: string, id: string, agent: string | undefined): SubtreeUsage | undefined {
  const top = agent === undefined ? sessionDir(home, id) : childDir(home, id, agent);
  if (!top) return undefined;
  const calls: SubtreeUsage["calls"] = [];
  let agents = 0;
  const visit = (dir: string, who: string, depth: number) => {
    agents++;
    for (const call of journalCalls(join(dir, JOURNAL_FILE))) calls.push({ agent: who, ...call });
    const children = join(dir, "children");
    if (depth >= MAX_DEPTH || !existsSync(children)) return;
    for (const name of readdirSync(children))
      if (existsSync(join(children, name, JOURNAL_FILE))) visit(join(children, name), name, depth + 1);
  };
  visit(top, agent ?? id, 0);
  calls.sort((a, b) => a.t - b.t);
  return { top: agent ?? id, agents, calls };
}

/** By journal path: its calls as of its size and mtime then (a journal only grows). */
const cached = new Map<string, { size: number; mtimeMs: number; calls: UsagePoint[] }>();

/** One journal's model calls, read again only when the file changed since the last look. */
function journalCalls(path: string): UsagePoint[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return [];
  const hit = cached.get(path);
  if (hit && hit.size === stat.size && hit.mtimeMs === stat.mtimeMs) return hit.calls;
  const calls: UsagePoint[] = [];
  try {
    for (const event of readJournal(path).events)
      if (event.type === "model_response") calls.push(usagePoint(event));
  } catch {
    // A journal being written as it is read (or damaged): its calls are left out of this look.
    return [];
  }
  cached.delete(path);
  cached.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, calls });
  if (cached.size > MAX_CACHED) cached.delete(cached.keys().next().value as string);
  return calls;
}
