// The host's figures the status line shows (tokens, context, budgets, kernel state): asked for again after
// the events that change them and on a slow clock, with the kernel's state followed from events in between.
import type { AgentEvent } from "../agent/core/events.js";
import { lostOnRelease } from "../agent/kernel-api/unsaved.js";
import type { Activity } from "./activity.js";
import type { AppApi } from "./app-api.js";
import type { SessionInfo } from "./session-link.js";

/** Events after which the host's figures (tokens, context, kernel state) are worth asking for again. */
const INFO_EVENTS = new Set([
  "user",
  "model_response",
  "llm_call",
  "cell",
  "cell_output",
  "kernel",
  "child_finished",
  "final",
  "goal",
  "compaction",
  "model",
  "budget_stop",
  "autonomy_end",
  "interrupted",
  "error",
]);

/** What the figures are read through; `link` is read each time (a new session replaces it). */
type FiguresHost = Pick<AppApi, "tui" | "link"> & { readonly activity: Activity };

export class HostFigures {
  /** The host's last `info` answer. */
  info: SessionInfo | undefined;
  /** The root kernel's state from events; the host's `info` is asked less often than this changes. */
  kernel: SessionInfo["kernel"] | undefined;
  /** Harness entries this session learned (passes, refines applied mid-session), from its events. */
  private readonly learnedEntries = new Set<string>();
  /** Lessons the session started with on probation, less those a verdict promoted or retired since. */
  private readonly probationEntries = new Set<string>();
  /** What the status line says about learning: "learned N · on probation M". */
  get learning(): { learned: number; probation?: number } {
    const probation = this.probationEntries.size;
    return { learned: this.learnedEntries.size, ...(probation > 0 ? { probation } : {}) };
  }
  /** The root kernel's variables its last snapshot could not save: lost when the kernel is released. */
  unsaved: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The next `info` answer may say a turn is running (set when a connection is made). */
  private syncBusy = false;
  private lastInfoAt = 0;

  constructor(private readonly host: FiguresHost) {}

  /** Follows one event from the host's stream. */
  apply(event: AgentEvent): void {
    if (!event.agent) {
      if (event.type === "learn" && event.outcome === "applied")
        for (const a of event.applied) this.learnedEntries.add(a.id);
      else if (event.type === "lesson") for (const id of event.entries) this.learnedEntries.add(id);
      else if (event.type === "harness_probation")
        for (const id of event.entries) this.probationEntries.add(id);
      else if (event.type === "harness_verdict" && (event.promoted || event.reverted))
        for (const id of event.entries ?? []) this.probationEntries.delete(id);
      if (event.type === "snapshot") this.unsaved = lostOnRelease(event.skipped);
      if (event.type === "kernel") this.kernel = event.event === "died" ? "restarting" : "idle";
      else if (event.type === "cell") this.kernel = "busy";
      else if (event.type === "cell_output") this.kernel = "idle";
    }
    if (INFO_EVENTS.has(event.type) && !event.agent) this.refresh();
    else if (event.type === "model_response" || event.type === "child_finished") this.refresh();
  }

  /** A connection to a host was just made: its first answer may say a turn is already running. */
  connected(): void {
    this.syncBusy = true;
    this.refresh(0);
  }

  refresh(delayMs = 250): void {
    const { host } = this;
    if (this.timer || !host.link.live) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!host.link.live) return;
      // Turns seen ending (the activity line counts them): an answer sent before one ended is no news.
      const endsBefore = host.activity.ended;
      this.lastInfoAt = Date.now();
      host.link
        .call("info")
        .then((info) => {
          this.info = info;
          // The host's answer wins over what events suggested (a kernel freed while idle, say).
          this.kernel = undefined;
          // An answer that crossed a turn's end on the way says nothing about the next turn.
          if (host.activity.ended !== endsBefore) return host.tui.requestRender();
          // The host knows best whether a turn is running: after attaching mid-turn, say. Only then,
          // though: later answers can be older than the events already shown (a turn that just ended).
          if (!info.busy && host.activity.busy && host.activity.phase !== "starting")
            host.activity.set("idle");
          if (info.busy && !host.activity.busy && this.syncBusy) host.activity.set("thinking");
          this.syncBusy = false;
          host.tui.requestRender();
        })
        .catch(() => undefined);
    }, delayMs);
  }

  /** Called on the UI's clock: while the agent works, the time budget and the kernel move without events. */
  tick(): void {
    const every = this.host.activity.busy ? 2000 : 15_000;
    if (this.host.link.live && Date.now() - this.lastInfoAt > every) this.refresh(0);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
