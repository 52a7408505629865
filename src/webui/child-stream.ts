// One sub-agent's own transcript for its page: the child's journal (children/ID/journal.jsonl somewhere
// under the session's folder, at any depth), from the page's last event on, then what is appended to it
// while the page is open. A child's journal is written as it works, so following the file shows what it
// journals; what it streams (a running cell's output, its answer as it is written) is never journaled, so
// it comes from the session's host, which publishes every agent's events: the child's deltas are passed
// on as they come, after the journal is read up to them (a cell is journaled before it runs, so its
// output always finds it on the page). `live` says whether the page follows the session's host now (its
// streamed events flow), as on the session's page.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../agent/core/events.js";
import { JOURNAL_FILE, readJournal, sessionDir } from "../session/index.js";
import { followSession } from "./session-stream.js";

const LOOK_MS = 300;
/** What an agent streams and never journals. */
const STREAMED = new Set(["text_delta", "reasoning_delta", "cell_output_delta"]);
/** Children of children of …: deeper than this is not looked for. */
const MAX_DEPTH = 12;

/** The folder of sub-agent `child` of session `id`, or undefined when it has none (yet). */
export function childDir(home: string, id: string, child: string): string | undefined {
  let level = [sessionDir(home, id)];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      const children = join(dir, "children");
      if (existsSync(join(children, child, JOURNAL_FILE))) return join(children, child);
      let names: string[] = [];
      try {
        names = readdirSync(children);
      } catch {
        // No children here.
      }
      for (const name of names) next.push(join(children, name));
    }
    level = next;
  }
  return undefined;
}

interface ChildStreamOptions {
  home: string;
  id: string;
  /** The sub-agent's id and folder. */
  child: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  after: number;
  /** `n`: its number in the child's journal; undefined for what is streamed (never journaled). */
  write(event: AgentEvent, n: number | undefined): void;
  live(on: boolean): void;
}

/** Follows the child's journal until close() is called. */
export function followChild(options: ChildStreamOptions): { close(): void } {
  const journal = join(options.dir, JOURNAL_FILE);
  let lastN = options.after;
  let readSize = -1;
  let open = true;
  /** What the journal has beyond the last event sent, when it grew. */
  const readNew = () => {
    const size = statSync(journal, { throwIfNoEntry: false })?.size ?? 0;
    if (size === readSize) return;
    try {
      const { events } = readJournal(journal);
      readSize = size;
      for (const event of events)
        if (event.n > lastN && open) {
          lastN = event.n;
          options.write(event as AgentEvent, event.n);
        }
    } catch {
      // Read as it is written: the next look reads it again.
    }
  };
  // Only live events: the root's history (numbered) is skipped, the host replays none.
  const deltas = followSession({
    home: options.home,
    id: options.id,
    env: options.env,
    after: Number.MAX_SAFE_INTEGER,
    history: false,
    // What the child's running cell printed before this page came: the page has its journal up to
    // `after` then (a reconnecting page that has the cell saw its output live, as on the session's page).
    child: { id: options.child, after: options.after },
    write: (event) => {
      if (!open || event.agent !== options.child || !STREAMED.has(event.type)) return;
      readNew();
      const { agent: _, ...own } = event;
      options.write(own as AgentEvent, undefined);
    },
    live: (on) => {
      if (open) options.live(on);
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    readNew();
    if (open) timer = setTimeout(loop, LOOK_MS);
  };
  loop();
  return {
    close: () => {
      open = false;
      clearTimeout(timer);
      deltas.close();
    },
  };
}
