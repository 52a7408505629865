import { readlinkSync } from "node:fs";
// One front end's hold on one session, whatever the front end (the terminal UI, ACP, the MCP server, the
// CLI): connect to its live host, or start or revive one; replay the history after the last event seen
// and then follow live events, without a gap or a duplicate; send, call, close. Each front end used to
// write this itself; what differs between them is an option here.
import { join } from "node:path";
import type { AgentEvent } from "../agent/core/events.js";
import { UserError } from "../config/errors.js";
import type { SessionSpec } from "../config/options.js";
import { JOURNAL_FILE, readJournal, sessionDir } from "../session/index.js";
import { SessionClient } from "./client.js";
import type { HostCall, HostMethod, ParamsArg, ResultOf } from "./protocol.js";
import { RpcError } from "./rpc.js";
import type { ChildAfter } from "./server.js";
import { type HostLaunch, reviveHost, spawnHost } from "./spawn.js";

interface SessionHandleOptions {
  home: string;
  id: string;
  /** The environment a started or revived host gets. */
  env?: NodeJS.ProcessEnv;
  /** Replay starts after this journal event (default 0: the whole history). */
  after?: number;
  /** Who this client is, as other clients of the host are told (default: this command, pid and terminal). */
  as?: string;
  /** A sub-agent's page: its running cell's output so far comes too, when its journal is at or before `after`. */
  child?: ChildAfter;
  /** Every event, replayed and then live, each root event once and in order. */
  onEvent?(event: AgentEvent): void;
  /** Just connected, before the history replays: a watcher set up here misses nothing. */
  onConnect?(): void;
  /** The host said it is going away (its reason). */
  onClosing?(reason: string): void;
  /** The connection closed: the host went away, or close() / stop() ended it. */
  onClosed?(): void;
}

interface ConnectOptions {
  /** Replay and then follow live events (default true); false for a connection that only calls. */
  follow?: boolean;
}

interface ReviveOptions extends ConnectOptions {
  /** The revived host's first turn (with the resume note, as `relm send` does it). */
  message?: string;
  /** Options the host is brought back with (replacing those the session remembers). */
  spec?: SessionSpec;
  /** Connect once it is up (default true); false when the message was all there was to hand over. */
  connect?: boolean;
}

/** A host that was started or revived did not answer on its socket. */
export class HostUnreachableError extends UserError {
  override name = "HostUnreachableError";
}

/** Calls on a handle with no host behind it. */
class NotLiveError extends RpcError {
  constructor(id: string) {
    super(-32000, `session ${id} is not running`);
  }
}

export class SessionHandle {
  private client: SessionClient | undefined;
  /** The last root journal event seen (replayed or live): the next replay starts after it. */
  lastN: number;

  constructor(private readonly options: SessionHandleOptions) {
    this.lastN = options.after ?? 0;
  }

  get id(): string {
    return this.options.id;
  }

  /** A host serves the session on this handle's connection now. */
  get live(): boolean {
    return this.client !== undefined;
  }

  /** Resolves when the current connection closes (at once when there is none). */
  get closed(): Promise<void> {
    return this.client?.closed ?? Promise.resolve();
  }

  /** Connects to the live host (replaying history after lastN, then following); false when none is live. */
  async connect(options: ConnectOptions = {}): Promise<boolean> {
    if (this.client) return true;
    const client = await SessionClient.connect(this.options.home, this.options.id);
    if (!client) return false;
    await this.adopt(client, options.follow ?? true);
    return true;
  }

  /** Starts a new host of the session in `cwd` (its options, its first turn), then connects. */
  async start(launch: HostLaunch, cwd: string): Promise<void> {
    await spawnHost(this.options.home, this.options.id, launch, this.env, cwd);
    await this.connectNow({});
  }

  /** Brings an exited session's host back (it resumes from the journal), then connects unless told not to. */
  async revive(options: ReviveOptions = {}): Promise<void> {
    await reviveHost(this.options.home, this.options.id, this.env, options.message, options.spec);
    if (options.connect ?? true) await this.connectNow(options);
  }

  /**
   * The session's history from its journal file, for a session no host serves: root events after
   * lastN go to onEvent (or, with `emit` false, are only counted as seen).
   */
  replayJournal(emit = true): void {
    const { events } = readJournal(join(sessionDir(this.options.home, this.options.id), JOURNAL_FILE));
    if (emit)
      for (const event of events) if (event.n > this.lastN) this.options.onEvent?.(event as AgentEvent);
    this.lastN = Math.max(this.lastN, events.at(-1)?.n ?? 0);
  }

  /** Calls a host method on the live connection. */
  readonly call: HostCall = <M extends HostMethod>(method: M, ...params: ParamsArg<M>) => {
    const client = this.client;
    if (!client) return Promise.reject(new NotLiveError(this.options.id)) as Promise<ResultOf<M>>;
    return client.call(method, ...params);
  };

  /** The person's message (a new turn when the session is idle). */
  send(text: string, variables?: { name: string; text: string }[]): Promise<ResultOf<"send">> {
    return this.call("send", variables ? { text, variables } : { text });
  }

  /** Leaves the host running (it keeps working and exits on its own once idle). */
  close(): void {
    const client = this.client;
    this.client = undefined;
    client?.close();
  }

  /** Stops the host gracefully and waits until it has closed the connection. */
  async stop(reason?: string): Promise<void> {
    const client = this.client;
    if (!client) return;
    await client.call("stop", reason === undefined ? {} : { reason }).catch(() => undefined);
    await client.closed;
  }

  private get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  private async connectNow(options: ConnectOptions): Promise<void> {
    if (await this.connect(options)) return;
    const id = this.options.id;
    throw new HostUnreachableError(`session ${id}: its host did not answer; see relm logs ${id}`);
  }

  private async adopt(client: SessionClient, follow: boolean): Promise<void> {
    this.client = client;
    void client.closed.then(() => {
      if (this.client === client) this.client = undefined;
      this.options.onClosed?.();
    });
    if (!follow) return;
    client.onNotification((n) => {
      if (n.method === "event") this.receive(n.params as AgentEvent);
      else if (n.method === "closing") {
        const reason = (n.params as { reason?: unknown } | undefined)?.reason;
        this.options.onClosing?.(typeof reason === "string" ? reason : "the session host stopped");
      }
    });
    this.options.onConnect?.();
    await client.call("attach", {
      after: this.lastN,
      as: this.options.as ?? thisClient(),
      ...(this.options.child ? { child: this.options.child } : {}),
    });
  }

  /** A root event numbered at or below one already seen is history told twice: dropped. */
  private receive(event: AgentEvent): void {
    if (!event.agent && "n" in event && typeof event.n === "number") {
      if (event.n <= this.lastN) return;
      this.lastN = event.n;
    }
    this.options.onEvent?.(event);
  }
}

/** "relm attach 1snrvz77 (pid 4242, /dev/pts/3)": this process, as other clients of a host see it. */
function thisClient(): string {
  const args = process.argv.slice(2).join(" ");
  let terminal = "";
  try {
    // Linux names the terminal a process reads from; elsewhere the pid alone says which.
    const input = readlinkSync("/proc/self/fd/0");
    if (input.startsWith("/dev/")) terminal = `, ${input}`;
  } catch {}
  return `relm${args ? ` ${args}` : ""} (pid ${process.pid}${terminal})`.slice(0, 200);
}
