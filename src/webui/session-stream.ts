// One open session page's events, through the one SessionHandle every front end uses: the history after
// the last event the page has (its EventSource's Last-Event-ID after a dropped connection), then live
// events while a host serves the session. When no host does, the journal is the history, and the stream
// waits for one to come (a message sent from the page, a schedule's tick) without starting one itself:
// an idle session held by its stub is connected to only once something wakes it.
import { statSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../agent/core/events.js";
import { isLive } from "../host/client.js";
import type { ChildAfter } from "../host/server.js";
import { SessionHandle } from "../host/session-handle.js";
import { readState } from "../host/states/state.js";
import { isStub } from "../host/stub-stop.js";
import { JOURNAL_FILE, sessionDir } from "../session/index.js";

const LOOK_MS = 500;

interface StreamOptions {
  home: string;
  id: string;
  env: NodeJS.ProcessEnv;
  /** The last root event the page has: replay starts after it. */
  after: number;
  /** Each event, once, in order (root events after `after`, children's as they come). */
  write(event: AgentEvent): void;
  /** Whether a host serves the session (changes as hosts come and go). */
  live(on: boolean): void;
  /** Replay the journal while no host serves it (default true); false: only a live host's events. */
  history?: boolean;
  /** A sub-agent's page (child-stream.ts): what its running cell printed before the page came, too. */
  child?: ChildAfter;
}

/** Follows the session until close() is called. */
export function followSession(options: StreamOptions): { close(): void } {
  const { home, id } = options;
  let open = true;
  let wake: (() => void) | undefined;
  const handle = new SessionHandle({
    home,
    id,
    env: options.env,
    after: options.after,
    child: options.child,
    onEvent: (event) => {
      if (open) options.write(event);
    },
  });

  /** A host that is working (or up and idle, not a stub): connecting to it starts nothing. */
  const awake = async (): Promise<boolean> => {
    const state = readState(home, id);
    if (!state || !(await isLive(home, id))) return false;
    return state.status !== "idle" || !isStub(state.pid);
  };

  const journal = join(sessionDir(home, id), JOURNAL_FILE);
  let readSize = -1;
  /** The journal again only when it grew (a finished session's is read once). */
  const replay = () => {
    const size = statSync(journal, { throwIfNoEntry: false })?.size ?? 0;
    if (size === readSize) return;
    handle.replayJournal();
    readSize = size;
  };

  const run = async () => {
    while (open) {
      if ((await awake()) && (await handle.connect().catch(() => false))) {
        if (!open) break;
        options.live(true);
        await handle.closed;
        if (!open) break;
        options.live(false);
      }
      // What the journal has beyond the last event seen (all of it at first; after a host went away,
      // what it wrote after its last published event).
      try {
        if (options.history ?? true) replay();
      } catch {
        // A journal being written as it is read (a session just created) is read again at the next look.
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, LOOK_MS).unref();
      });
    }
  };
  void run();
  return {
    close: () => {
      open = false;
      handle.close();
      wake?.();
    },
  };
}
