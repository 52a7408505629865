// The UI's one connection to a session: every session the UI shows is served by a host process (started
// detached, so it outlives the terminal), and the UI is a client of its socket. A saved session whose host
// has exited is shown from its journal and brought back only when the person asks it to do something.
import type { AgentEvent } from "../agent/core/events.js";
import type { SessionSpec } from "../config/options.js";
import type { HostCall } from "../host/protocol.js";
import { HostUnreachableError, SessionHandle } from "../host/session-handle.js";
import { newSessionId } from "../session/index.js";

export type LinkState = "new" | "starting" | "live" | "offline" | "closed";

/** What `info` answers (see docs/sessions.md, "The protocol"). */
export type { SessionInfo } from "../host/info.js";

interface LinkOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Options a new host is started with (budgets, model…). */
  hostSpec: SessionSpec;
  /**
   * Options a saved session's host is brought back with: those given to this `relm`, which replace the
   * ones the session remembers (host/session-flags.ts); no --var, which belongs to a session's start.
   */
  resumeSpec: SessionSpec;
  onEvent(event: AgentEvent): void;
  onState(state: LinkState, detail?: string): void;
}

export class SessionLink {
  private handle: SessionHandle | undefined;
  private currentState: LinkState = "new";
  /** Set when the person leaves on purpose, so a closing socket is not reported as the host dying. */
  private leaving = false;

  constructor(private readonly options: LinkOptions) {}

  get id(): string | undefined {
    return this.handle?.id;
  }

  get state(): LinkState {
    return this.currentState;
  }

  get live(): boolean {
    return this.currentState === "live";
  }

  /** A new session whose host runs `task` as its first turn (options such as a goal go in `extra`). */
  async start(task: string | undefined, extra: SessionSpec = {}, id = newSessionId()): Promise<string> {
    const handle = this.handleFor(id);
    this.setState("starting");
    const { hostSpec } = this.options;
    const spec: SessionSpec = { interactive: true, awaitClient: true, ...hostSpec, ...extra };
    // The first message's pastes join `relm --var` ones.
    if (hostSpec.var && extra.var) spec.var = [...hostSpec.var, ...extra.var];
    // A mode chosen before the first message replaces the flags' (--sandbox is one word for it).
    if (extra.mode) delete spec.sandbox;
    try {
      await handle.start({ spec, task }, this.options.cwd);
    } catch (error) {
      // A host that started but did not answer may still come up: the session is there to resume.
      this.setState(error instanceof HostUnreachableError ? "offline" : "closed", (error as Error).message);
      throw error;
    }
    this.setState("live");
    return id;
  }

  /** An existing session: live → history then live events; exited → its history from the journal. */
  async open(id: string): Promise<void> {
    const handle = this.handleFor(id);
    if (await handle.connect()) {
      this.setState("live");
      return;
    }
    handle.replayJournal();
    this.setState("offline");
  }

  /**
   * Brings an exited session's host back: it resumes from the journal and waits for work (the person's
   * next message), or with `continueWork` (`relm run --resume ID`) continues what was left half done.
   */
  async revive(options: { continueWork?: boolean } = {}): Promise<void> {
    const handle = this.handle;
    if (!handle) throw new Error("no session to revive");
    this.setState("starting");
    this.leaving = false;
    try {
      const continueWork = options.continueWork ? { continueWork: true } : {};
      await handle.revive({ spec: { interactive: true, ...this.options.resumeSpec, ...continueWork } });
    } catch (error) {
      this.setState("offline", (error as Error).message);
      throw error;
    }
    this.setState("live");
  }

  /** Calls a host method (src/host/protocol.ts); fails when no host serves the session. */
  readonly call: HostCall = (method, ...params) => {
    if (!this.handle?.live) return Promise.reject(new Error("the session is not running"));
    return this.handle.call(method, ...params);
  };

  /** Leaves the host running (it keeps working and exits on its own once idle). */
  detach(): void {
    this.leaving = true;
    this.handle?.close();
  }

  /** The other clients attached to the host (other terminals, logs -f), as each said who it is. */
  async otherClients(): Promise<string[]> {
    if (!this.live) return [];
    // An older host has no such method: then nobody else is known.
    return this.call("clients")
      .then((r) => r.others)
      .catch(() => []);
  }

  /** Stops the host gracefully and waits until it has closed. */
  async stop(): Promise<void> {
    this.leaving = true;
    await this.handle?.stop();
  }

  /** The one handle of session `id` (a new one when the link moves to another session). */
  private handleFor(id: string): SessionHandle {
    this.handle?.close();
    this.leaving = false;
    const handle = new SessionHandle({
      home: this.options.home,
      id,
      env: this.options.env,
      onEvent: (event) => this.options.onEvent(event),
      onClosing: (reason) => {
        if (!this.leaving && this.handle === handle) this.setState("offline", reason);
      },
      onClosed: () => {
        if (!this.leaving && this.handle === handle && this.currentState === "live")
          this.setState("offline", "the connection to the session host closed");
      },
    });
    this.handle = handle;
    return handle;
  }

  private setState(state: LinkState, detail?: string): void {
    this.currentState = state;
    this.options.onState(state, detail);
  }
}
