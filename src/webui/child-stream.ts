// One sub-agent's own transcript for its page: the child's journal (children/ID/journal.jsonl somewhere
// under the session's folder, at any depth), from the page's last event on, then what is appended to it
// while the page is open. A child's journal is written as it works, so following the file shows it live
// (its streamed text arrives as whole answers); `live` says whether the session's host is up.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../agent/core/events.js";
import { isLive } from "../host/client.js";
import { JOURNAL_FILE, readJournal, sessionDir } from "../session/index.js";

const LOOK_MS = 300;
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
  dir: string;
  after: number;
  write(event: AgentEvent, n: number): void;
  live(on: boolean): void;
}

/** Follows the child's journal until close() is called. */
export function followChild(options: ChildStreamOptions): { close(): void } {
  const journal = join(options.dir, JOURNAL_FILE);
  let lastN = options.after;
  let readSize = -1;
  let wasLive: boolean | undefined;
  let open = true;
  const look = async () => {
    const size = statSync(journal, { throwIfNoEntry: false })?.size ?? 0;
    if (size !== readSize) {
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
    }
    const live = await isLive(options.home, options.id).catch(() => false);
    if (open && live !== wasLive) {
      wasLive = live;
      options.live(live);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const loop = async () => {
    await look();
    if (open) timer = setTimeout(() => void loop(), LOOK_MS);
  };
  void loop();
  return {
    close: () => {
      open = false;
      clearTimeout(timer);
    },
  };
}
