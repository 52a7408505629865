// The UI's one connection to a session: every session the UI shows is served by a host process (started
// detached, so it outlives the terminal), and the UI is a client of its socket. A saved session whose host
// has exited is shown from its journal and brought back only when the person asks it to do something.
import type { AgentEvent } from "../agent/events.js";
import { SessionClient } from "../host/client.js";
import { reviveHost, spawnHost } from "../host/spawn.js";
import { JOURNAL_FILE, newSessionId, readJournal, sessionDir } from "../session/index.js";

export type LinkState = "new" | "starting" | "live" | "offline" | "closed";

/** What `info` answers (see docs/sessions.md, "The protocol"). */
export type { SessionInfo } from "../host/info.js";

export interface LinkOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Flags a new host is started with (budgets, model, gates…), as command-line words. */
  hostArgs: string[];
  /**
   * Flags a saved session's host is brought back with: those given to this `relm`, which replace the
   * ones the session remembers (host/session-flags.ts); no --var, which belongs to a session's start.
   */
  resumeArgs: string[];
  onEvent(event: AgentEvent): void;
  onState(state: LinkState, detail?: string): void;
}

export class SessionLink {
  private client: SessionClient | undefined;
  private lastN = 0;
  private sessionId: string | undefined;
  private currentState: LinkState = "new";
  /** Set when the person leaves on purpose, so a closing socket is not reported as the host dying. */
  private leaving = false;

  constructor(private readonly options: LinkOptions) {}

  get id(): string | undefined {
    return this.sessionId;
  }

  get state(): LinkState {
    return this.currentState;
  }

  get live(): boolean {
    return this.currentState === "live";
  }

  /** A new session whose host runs `task` as its first turn (flags such as a goal go in `extraArgs`). */
  async start(task: string, extraArgs: string[] = [], id = newSessionId()): Promise<string> {
    this.sessionId = id;
    this.setState("starting");
    const args = [
      "run",
      "--as-host",
      id,
      "--interactive",
      "--await-client",
      ...this.options.hostArgs,
      ...extraArgs,
      "--",
      task,
    ];
    try {
      await spawnHost(this.options.home, id, args, this.options.env, this.options.cwd);
    } catch (error) {
      this.setState("closed", (error as Error).message);
      throw error;
    }
    await this.connect(id);
    return id;
  }

  /** An existing session: live → history then live events; exited → its history from the journal. */
  async open(id: string): Promise<void> {
    this.sessionId = id;
    const client = await SessionClient.connect(this.options.home, id);
    if (client) {
      await this.adopt(client);
      return;
    }
    const { events } = readJournal(`${sessionDir(this.options.home, id)}/${JOURNAL_FILE}`);
    for (const event of events) this.options.onEvent(event as AgentEvent);
    this.lastN = events.at(-1)?.n ?? 0;
    this.setState("offline");
  }

  /** Brings an exited session's host back (it resumes from the journal and waits for work). */
  async revive(): Promise<void> {
    const id = this.sessionId;
    if (!id) throw new Error("no session to revive");
    this.setState("starting");
    try {
      await reviveHost(this.options.home, id, this.options.env, undefined, [
        "--interactive",
        ...this.options.resumeArgs,
      ]);
    } catch (error) {
      this.setState("offline", (error as Error).message);
      throw error;
    }
    await this.connect(id);
  }

  async call<T = unknown>(method: string, params?: unknown): Promise<T> {
    if (!this.client) throw new Error("the session is not running");
    return this.client.call<T>(method, params);
  }

  /** Leaves the host running (it keeps working and exits on its own once idle). */
  detach(): void {
    this.leaving = true;
    this.client?.close();
    this.client = undefined;
  }

  /** Stops the host gracefully and waits until it has closed. */
  async stop(): Promise<void> {
    this.leaving = true;
    const client = this.client;
    if (!client) return;
    await client.call("stop", {}).catch(() => undefined);
    await client.closed;
    this.client = undefined;
  }

  private async connect(id: string): Promise<void> {
    const client = await SessionClient.connect(this.options.home, id);
    if (!client) {
      this.setState("offline", "the session host did not answer");
      throw new Error(`session ${id}: its host did not answer`);
    }
    await this.adopt(client);
  }

  private async adopt(client: SessionClient): Promise<void> {
    this.client = client;
    this.leaving = false;
    client.onNotification((n) => {
      if (n.method === "event") {
        const event = n.params as AgentEvent;
        if ("n" in event && !event.agent && typeof event.n === "number") this.lastN = event.n;
        this.options.onEvent(event);
      } else if (n.method === "closing") {
        const reason = (n.params as { reason?: string } | undefined)?.reason;
        if (!this.leaving) this.setState("offline", reason ?? "the session host stopped");
      }
    });
    void client.closed.then(() => {
      if (this.client !== client) return;
      this.client = undefined;
      if (!this.leaving) this.setState("offline", "the connection to the session host closed");
    });
    await client.call("attach", { after: this.lastN });
    this.setState("live");
  }

  private setState(state: LinkState, detail?: string): void {
    this.currentState = state;
    this.options.onState(state, detail);
  }
}
