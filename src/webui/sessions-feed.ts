// The sessions page's data: every session as `relm agents --json` lists it (the hosts' own summaries,
// liveness checked on their locks), with the model its journal started with, pushed to every open page
// when it changes. One look a second while any page is open, none when none is; nothing is kept but the
// last list sent (to send only changes, and at once to a page that opens again) and each session's
// model (a journal header never changes). A look whose files are as they were (listingStamp) while no
// host may be live lists nothing again: a thousand finished sessions cost one stat of three paths a second.
import { join } from "node:path";
import { listingStamp, listSessions } from "../host/states/discovery.js";
import { claimsLiveHost, type SessionStatus } from "../host/states/state.js";
import { JOURNAL_FILE, readJournalHeader, sessionDir } from "../session/index.js";
import type { WebSession } from "./web-session.js";

const LOOK_MS = 1000;

export class SessionsFeed {
  private readonly listeners = new Set<(json: string) => void>();
  private readonly models = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private last = "";
  /** The files the last list was read from, and whether a host in it may be live (then: always look). */
  private stamp = "";
  private mayLive = true;
  private looking = false;

  constructor(private readonly home: string) {}

  async list(): Promise<WebSession[]> {
    const listings = await listSessions(this.home);
    return listings.map((s) => ({ ...s, model: this.modelOf(s.id) }));
  }

  /**
   * Lists once with no page open (the server calls it as it starts): the first page to open is sent
   * this list at once, instead of waiting for a listing of every session (each journal's header read
   * for its model), and the look that follows sends what changed since.
   */
  async prime(): Promise<void> {
    await this.look();
  }

  /** Calls `listener` with the list now and whenever it changes; returns the unsubscribe. */
  subscribe(listener: (json: string) => void): () => void {
    this.listeners.add(listener);
    const known = this.last !== "";
    if (known) listener(this.last);
    if (!this.timer) {
      this.timer = setInterval(() => void this.look(), LOOK_MS);
      this.timer.unref();
    }
    void this.look(known ? undefined : listener);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        // The last list stays: a page that reloads (the usual way to open it again) is drawn at once
        // from it, and the look that follows sends what changed.
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private async look(fresh?: (json: string) => void): Promise<void> {
    if (this.looking) return;
    this.looking = true;
    try {
      const stamp = listingStamp(this.home);
      if (stamp === this.stamp && !this.mayLive && this.last !== "") {
        fresh?.(this.last);
        return;
      }
      const list = await this.list();
      this.stamp = stamp;
      // A live host (or one its summary says runs, checked on its socket at each look) can change what
      // is listed without a file of the stamp changing: it stops answering, or answers again.
      this.mayLive = list.some((s) => s.live || claimsLiveHost(s.status as SessionStatus));
      const json = JSON.stringify(list);
      if (json !== this.last) {
        this.last = json;
        for (const l of this.listeners) l(json);
      } else fresh?.(json);
    } catch {
      // A listing that failed (a session dir removed while read) is retried at the next look.
    } finally {
      this.looking = false;
    }
  }

  private modelOf(id: string): string {
    let model = this.models.get(id);
    if (model === undefined) {
      try {
        model = readJournalHeader(join(sessionDir(this.home, id), JOURNAL_FILE)).model;
      } catch {
        model = "";
      }
      this.models.set(id, model);
    }
    return model;
  }
}
