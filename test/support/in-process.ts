// An agent session made in this process the way the CLI makes one (src/cli/setup.ts prepareSession),
// against a rig's scripted model and with real kernels: for tests of the loop, the children and the
// kernel owner without a spawned relm in between.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { Agent } from "../../src/agent/core/agent.js";
import type { AgentEvent } from "../../src/agent/core/events.js";
import { prepareSession } from "../../src/cli/setup.js";
import type { SessionSpec } from "../../src/config/options.js";
import type { JournalLine } from "./journal.js";
import type { Rig } from "./scripted.js";

export interface InProcess {
  session: Agent;
  /** Everything the session showed a front end, in order (journal events and live ones). */
  events: AgentEvent[];
  /** The root's journal as it is now. */
  lines(): JournalLine[];
  /** The journals of the root's children, by child id. */
  children(): Map<string, JournalLine[]>;
}

export function readJournal(path: string): JournalLine[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalLine);
}

/**
 * `open(rig, flags)` for a test file. Call it after `useRigs()`: vitest runs afterEach hooks in reverse,
 * so every session a test opened is closed (kernels stopped) before the rig checks for orphans.
 */
export function useSessions(): (rig: Rig, flags?: SessionSpec) => Promise<InProcess> {
  let open: Agent[] = [];
  afterEach(async () => {
    const sessions = open;
    open = [];
    for (const s of sessions) await s.close();
  });
  return async (rig, flags = {}) => {
    const events: AgentEvent[] = [];
    const { session } = await prepareSession("in-process", flags, { env: rig.env, cwd: rig.cwd }, (e) =>
      events.push(e),
    );
    open.push(session);
    const childrenDir = join(session.dir, "children");
    return {
      session,
      events,
      lines: () => readJournal(join(session.dir, "journal.jsonl")),
      children: () =>
        new Map(
          (existsSync(childrenDir) ? readdirSync(childrenDir) : []).map((id) => [
            id,
            readJournal(join(childrenDir, id, "journal.jsonl")),
          ]),
        ),
    };
  };
}

/** The journal lines of the given types, in order. */
export function ofTypes(lines: JournalLine[], ...types: string[]): JournalLine[] {
  return lines.filter((l) => types.includes(l.type));
}

/** Whether a process is alive (signal 0 probes without touching it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
