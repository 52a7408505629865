// Whether a process runs inside a relm kernel, read from /proc (Linux): a session host asks it of every
// client that does more than read, so that code a model wrote cannot act as the person (docs/sessions.md).
import { readFileSync } from "node:fs";
import { KERNEL_MARKER } from "../kernel/index.js";

/** Who is on the other end of a session socket. */
export type Peer =
  /** A person's process (a terminal, the UI, a script of theirs, another session's host). */
  | { kind: "user" }
  /** A process inside a relm kernel's process tree; `session` is the session that kernel belongs to. */
  | { kind: "kernel"; session: string; pid: number }
  /** Not identified where it could have been (the process is gone, the helper failed): not the user. */
  | { kind: "unknown"; reason: string };

/** One process on a chain of ancestors, with the session its environment marks it as a kernel of. */
interface Link {
  pid: number;
  marker?: string;
}

/** A run of processes of one kernel on a chain: its session and the topmost process of the run. */
interface Unit {
  session: string;
  top: number;
}

const MAX_DEPTH = 4096;
const NEEDLE = `\0${KERNEL_MARKER}=`;
/** A marker that could be a session's; any other still marks a kernel, of a session called "unknown". */
const SESSION_WORD = /^[0-9A-Za-z_-]{1,64}$/;

/**
 * Whether process `pid` runs inside a relm kernel, seen from the host process `self`.
 *
 * Every process of a kernel descends from the kernel's keeper (python/relm/keeper.py), which carries
 * `RELM_KERNEL=<session>` in the environment it started with (/proc/PID/environ: what a cell does to
 * os.environ, even `env -i`, does not change it, and no cell runs in the keeper) and is the subreaper
 * that adopts whatever a cell detaches (setsid, double forks), so the chain of parents from any such
 * process passes through it while the kernel lives. Walking up from `pid` therefore finds the marker
 * of every kernel it is inside.
 *
 * Consecutive processes with the same marker are one kernel, named by its topmost process. A kernel
 * that is also above this host is not held against the peer: a cell that started a session
 * (`relm run --detach` in a cell) may drive it, as its user. Any other kernel on the chain makes the
 * peer a kernel's; it is named after the topmost such kernel, since a cell can start processes with a
 * marker of its choosing below its own kernel but never above it.
 */
export function classifyPeer(pid: number, self: number = process.pid): Peer {
  const peer = chainOf(pid);
  if (peer.length === 0) return { kind: "unknown", reason: `process ${pid} is gone` };
  const own = new Set(unitsOf(chainOf(self)).map(key));
  const foreign = unitsOf(peer).filter((u) => !own.has(key(u)));
  const outer = foreign.at(-1);
  return outer ? { kind: "kernel", session: outer.session, pid } : { kind: "user" };
}

function key(unit: Unit): string {
  return `${unit.session}@${unit.top}`;
}

function unitsOf(chain: Link[]): Unit[] {
  const units: Unit[] = [];
  for (const link of chain) {
    if (link.marker === undefined) continue;
    const last = units.at(-1);
    if (last && last.session === link.marker) last.top = link.pid;
    else units.push({ session: link.marker, top: link.pid });
  }
  return units;
}

/** `pid` and its ancestors up to init, each with its marker; empty if `pid` does not exist. */
export function chainOf(pid: number): Link[] {
  const chain: Link[] = [];
  const seen = new Set<number>();
  let current = pid;
  while (current > 0 && !seen.has(current) && chain.length < MAX_DEPTH) {
    seen.add(current);
    const parent = parentOf(current);
    if (parent === undefined) break; // gone meanwhile: the chain ends here
    const marker = markerOf(current);
    chain.push({
      pid: current,
      marker: marker === undefined || SESSION_WORD.test(marker) ? marker : "unknown",
    });
    current = parent;
  }
  return chain;
}

/** The parent of process `pid`; undefined when it is gone. */
export function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // The command name (field 2) may hold spaces and parentheses: fields resume after the last ")".
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/**
 * The session `pid`'s start-up environment marks it as a kernel of, as written there (a cell may have
 * set anything); unreadable counts as unmarked.
 */
export function markerOf(pid: number): string | undefined {
  let environ: string;
  try {
    environ = `\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`;
  } catch {
    return undefined; // another user's process, or one made non-dumpable: its parent decides
  }
  const at = environ.indexOf(NEEDLE);
  if (at < 0) return undefined;
  const start = at + NEEDLE.length;
  const end = environ.indexOf("\0", start);
  return environ.slice(start, end < 0 ? undefined : end);
}
