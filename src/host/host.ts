import type { Socket } from "node:net";
import type { Agent } from "../agent/core/agent.js";
import type { AgentEvent } from "../agent/core/events.js";
import { type AutonomousOutcome, type AutonomySettings, runAutonomously } from "../agent/gates/autonomy.js";
import { ClientPresence } from "./client-presence.js";
import { hostCommands } from "./commands.js";
import { reviveArgs, startStub, stubAvailable } from "./handoff.js";
import { compactMemory, IdleCollector } from "./idle-gc.js";
import { IdleTimers } from "./idle-timers.js";
import { checkInbound, type Inbound, withVariablesNamed } from "./inbound.js";
import { sessionInfo } from "./info.js";
import { JournalIndex } from "./journal-index.js";
import { approvalNotifier, notify, outcomeNotice, sessionEndHooks, sessionStartHooks } from "./notify.js";
import { hostLogPath } from "./paths.js";
import { PeerIdentifier } from "./peer-creds.js";
import { splitKeys } from "./private-keys.js";
import { checkParams, type HostCall, type HostHandlers, type ResultOf } from "./protocol.js";
import { RedactedEvents } from "./redacted-events.js";
import { refused } from "./rpc.js";
import { RunningOutput } from "./running-output.js";
import { kernelScheduler } from "./schedules/kernel-calls.js";
import { Scheduler } from "./schedules/scheduler.js";
import { type ChildAfter, SessionServer } from "./server.js";
import { StateBoard } from "./states/board.js";
import { failureReason, titleOf } from "./turn-words.js";

export interface HostOptions {
  home: string;
  session: Agent;
  title: string;
  cwd: string;
  detached: boolean;
  /** A detached host exits this long after its last turn (after snapshotting); default 30 min. */
  idleExitMs?: number;
  /** An idle host frees its kernel (snapshotted) after this long; default 5 min. */
  kernelIdleMs?: number;
  /** Autonomous mode: turns continue until gates pass, done() is called, or a budget is spent. */
  autonomy?: AutonomySettings;
  /** Called when the host stops with schedules still to come, so a waker can revive it in time. */
  ensureWaker?: () => Promise<void>;
  /** Started for a person's front end (the terminal UI): autonomous mode is never unattended. */
  interactive?: boolean;
  /**
   * Once its kernel is freed, an idle detached host hands its socket to a stub and ends its process
   * with `exit` (src/host/handoff.ts); without this it stays up until its idle deadline.
   */
  handOffWhenIdle?: { exit: () => void };
}

/**
 * Runs one session tree in this process and serves it on its socket: clients attach (journal replay,
 * then live events), send messages (a new turn when idle, else delivered at the next turn boundary) and
 * stop it. Keeps state.json current. A detached host stays up between turns until it has been idle for
 * a while, then snapshots and exits; a revived host resumes from the journal.
 */
export class SessionHost {
  private server: SessionServer | undefined;
  /** Who the socket's clients are: code inside a kernel may not act as the person (docs/sessions.md). */
  private peers: PeerIdentifier | undefined;
  private readonly index: JournalIndex;
  /** state.json: what `relm agents` lists (states/board.ts). */
  private readonly board: StateBoard;
  private readonly queue: Inbound[] = [];
  private turn: Promise<AutonomousOutcome> | undefined;
  private stopping = false;
  private readonly idleTimers: IdleTimers;
  private resolveExit: ((outcome: AutonomousOutcome | undefined) => void) | undefined;
  /** Resolves when the host has stopped (idle exit, stop request, or its work ended in the foreground). */
  readonly exited: Promise<AutonomousOutcome | undefined>;
  private lastOutcome: AutonomousOutcome | undefined;
  readonly scheduler: Scheduler;
  private readonly collector = new IdleCollector();
  /** Running cells' output so far (the session's, each sub-agent's), for clients that attach mid-cell. */
  private readonly runningOutput = new RunningOutput();
  /** What clients are sent: every event, live pieces too, redacted of the session's secrets. */
  private readonly published = new RedactedEvents((event) => {
    this.runningOutput.note(event);
    this.server?.publish(event);
  });
  /** Every method the host answers (src/host/protocol.ts), by name. */
  private readonly handlers: HostHandlers;
  /** Clients following the live events (client-presence.ts): the first one is waited for with first(). */
  readonly clients = new ClientPresence((count) => {
    if (count > 0) this.idleTimers.clear();
    else if (this.options.detached && !this.turn && !this.stopping) this.armIdleTimers();
  });

  constructor(private readonly options: HostOptions) {
    this.index = new JournalIndex(options.session.journal.path);
    this.index.scan();
    this.board = new StateBoard(options.session, options);
    this.published.use(options.session.tree.options.secrets);
    this.scheduler = new Scheduler(
      options.home,
      options.session.id,
      (from, text) => this.deliverTick(from, text),
      (from) => this.queue.some((m) => m.from === from) || options.session.mailbox.hasUnreadFrom(from),
    );
    // A message left in the root's mailbox while it is idle (a background child's send("parent")) has
    // no turn boundary coming to read it: it starts a turn, as a message through the socket does.
    options.session.mailbox.onUnread = () =>
      setImmediate(() => {
        if (!this.turn && !this.stopping) this.next();
      });
    // schedule(...) from Python reaches this host's jobs.
    options.session.tree.options.scheduler = kernelScheduler(
      options.home,
      options.session.id,
      this.scheduler,
    );
    this.idleTimers = new IdleTimers(options.kernelIdleMs ?? 300_000, options.idleExitMs ?? 1_800_000);
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    // A request waiting for a person shows in `relm agents` ("needs approval") until it is answered.
    const announce = approvalNotifier(options.session);
    options.session.tree.approvals.onChange((pending) => {
      this.board.waitingApprovals = pending.length;
      this.board.write();
      announce(pending);
    });
    this.handlers = {
      ...hostCommands(this),
      status: () => this.board.snapshot(),
      info: () => sessionInfo(this, this.options, this.board),
      // Autonomous mode for the next turns; set by a person here, it may assume nobody answers only on
      // a detached, non-UI host.
      autonomy: (p) => {
        const { detached, interactive } = this.options;
        if (p.mode === "on")
          this.options.autonomy = { gates: p.gates ?? [], unattended: detached && !interactive };
        else if (p.mode === "off") this.options.autonomy = undefined;
        const a = this.options.autonomy;
        return { autonomy: a ? { gates: [...a.gates] } : null };
      },
      shell: (p) => this.runShell(p.command),
      "schedule.reload": () => {
        this.scheduler.reload();
        return { jobs: this.scheduler.pending().length };
      },
      stop: (p) => {
        setImmediate(() => void this.stop(p.reason ?? "stopped on request"));
        return { stopping: true };
      },
    };
  }

  get id(): string {
    return this.options.session.id;
  }

  get session(): Agent {
    return this.options.session;
  }

  get home(): string {
    return this.options.home;
  }

  /** A turn (or an autonomous run of turns) is in progress. */
  get busy(): boolean {
    return this.turn !== undefined;
  }

  /** Messages waiting: queued for the next turn, or delivered during this one and not yet read. */
  get queued(): number {
    return this.queue.length + this.options.session.mailbox.unreadCount;
  }

  /**
   * Starts serving, on a socket bound earlier (a detached host binds it first: it is the session's lock)
   * or a new one; throws SessionBusyError when another host already serves this session.
   */
  async listen(bound?: SessionServer): Promise<void> {
    const peers = new PeerIdentifier(this.options.session.tree.python.path);
    this.peers = peers;
    // A front end will connect to a background or UI host: its first request need not wait for the helper.
    if (this.options.detached || this.options.interactive) peers.warm();
    const handlers = {
      replay: (after: number, emit: (event: unknown) => void, child?: ChildAfter) => {
        const last = this.index.replay(after, emit);
        this.runningOutput.replay(after, emit, child);
        return last;
      },
      check: checkParams,
      call: (method: string, params: unknown) => this.answer(method, params),
      attached: (count: number) => this.clients.set(count),
      identify: (socket: Socket) => peers.identify(socket),
    };
    this.server = bound ?? (await SessionServer.listen(this.options.home, this.id));
    this.server.serve(handlers);
    this.board.write();
    this.scheduler.reload();
    await sessionStartHooks(this.options.session);
  }

  /** Feed every event of the tree here (the session's sink): indexes, publishes, tracks activity. */
  onEvent(event: AgentEvent): void {
    if ("n" in event && !event.agent) this.index.note(event.n, this.options.session.journal.byteLength);
    this.published.sink(event);
    this.board.noteEvent(event);
    if (event.type === "child_finished" && !event.agent && this.options.detached)
      setImmediate(() => {
        if (!this.turn && !this.stopping) this.armIdleTimers();
      });
  }

  /** A scheduled tick. Out of budget it is dropped (a turn would only stop), the first one saying why. */
  private deliverTick(from: string, text: string): void {
    const stop = this.options.session.budget.check();
    if (!stop) {
      this.deliver({ from, text });
      return;
    }
    if (this.tickRefused) return;
    this.tickRefused = true;
    const higher = stop.budget === "max-time" ? "" : ` with a higher --${stop.budget}`; // time restarts
    const message = `${from}: no turn while the session is out of budget (${stop.message}); resume it${higher}`;
    this.options.session.record({ type: "warning", message });
  }
  private tickRefused = false;

  /** Queues a message; it starts a turn now if the session is idle. Variables go with it. */
  deliver(message: Inbound): void {
    checkInbound(message.text, this.queue.length, this.id, this.stopping);
    // A session started without a task is named by its first message.
    if (!this.options.title && message.from === "user") this.options.title = titleOf(message.text);
    const named = message.variables?.length
      ? this.options.session.turns.pendingVariables.queue(message.variables)
      : [];
    const text = withVariablesNamed(message.text, named);
    if (this.turn) {
      this.options.session.deliver(message.from, text);
      return;
    }
    // It starts a turn as that turn's text; code in the turn reads it with inbox() like any message.
    this.options.session.mailbox.note(message.from, text);
    this.queue.push({ ...message, text });
    this.pump();
  }

  /**
   * A person's `!command` (agent/core/shell.ts): it holds the turn's place, so a message sent meanwhile
   * waits for it and Esc interrupts it like a cell.
   */
  async runShell(command: string): Promise<{ status: string; output: string }> {
    if (this.turn || this.stopping)
      throw refused("the agent is working: wait for the turn to end (or Esc) first");
    const run = this.options.session.runShell(command);
    this.idleTimers.clear();
    this.turn = run.then(
      (): AutonomousOutcome => ({ status: "done", text: "" }) as AutonomousOutcome,
      (error: Error): AutonomousOutcome => ({ status: "error", message: error.message }) as AutonomousOutcome,
    );
    try {
      const result = await run;
      return { status: result.status, output: result.output };
    } finally {
      await this.turn;
      this.turn = undefined;
      this.next(); // messages sent while it ran were held for the next turn boundary: this is it
    }
  }

  /** Runs a turn with this text (the task, or a resume note). */
  start(text: string): void {
    this.queue.push({ from: "user", text });
    this.pump();
  }

  /** A person's message in a hosted interactive session: resolves when the turn that read it ends. */
  ask(text: string): Promise<AutonomousOutcome> {
    return new Promise((done) => {
      this.queue.push({ from: "user", text, done });
      this.pump();
    });
  }

  /**
   * A person's Ctrl-C / Esc: the running turn stops (model stream and cell) and every running sub-agent
   * is cancelled, with its whole subtree; the session stays up for the next message. True when
   * something was running.
   */
  interrupt(): boolean {
    const session = this.options.session;
    const active = session.interruptTree();
    // Between two turns of an autonomous run (gates running): the next turn must not start.
    if (this.turn && !session.state.running) session.state.interruptNextRun = true;
    return active || this.turn !== undefined;
  }

  /** Waits for work (a resumed session whose last turn had ended). */
  idle(): void {
    this.board.set("idle");
    if (this.options.detached) this.armIdleTimers();
  }

  /** Graceful stop: the running cell is interrupted, state flushed, the host closes. */
  async stop(reason = "stopped on request"): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.idleTimers.clear();
    if (this.turn) {
      this.options.session.cancel(reason);
      await this.turn.catch(() => undefined);
      this.board.set("interrupted", reason);
    }
    await this.shutdown(true);
  }

  /** Ends a foreground host once its work is done (no idle wait). */
  async finish(): Promise<void> {
    // A message that arrived as the last turn ended starts one more turn: answer it before closing.
    while (this.turn) await this.turn.catch(() => undefined);
    this.stopping = true;
    this.idleTimers.clear();
    await this.shutdown();
  }

  private async shutdown(stopped = false): Promise<void> {
    // Nobody serves it any more: a session that was waiting for more work is finished.
    if (this.board.status === "idle") this.board.status = "done";
    await this.closeSession(stopped);
    this.board.write();
    await this.shutdownServer();
  }

  /** What this process does last with the session, whether it exits or hands the session to a stub. */
  private async closeSession(stopped = false): Promise<void> {
    await this.notices;
    this.scheduler.stop();
    this.collector.stop();
    // Nobody can answer once the session closes: a request still waiting is refused (and journaled so).
    this.options.session.tree.approvals.refuseAll("the session ended before anyone answered");
    await this.options.session.hooks?.closing?.(stopped); // a background replay check ends first
    // The session's work is complete here: the last chance to judge edits with it before it closes.
    this.judge();
    await sessionEndHooks(
      this.options.session,
      stopped ? "stopped" : this.board.status === "done" ? "done" : "exit",
    );
    await this.options.session.close();
  }

  private async shutdownServer(): Promise<void> {
    await this.server?.close();
    this.peers?.close();
    if (this.scheduler.pending().length > 0) await this.options.ensureWaker?.().catch(() => undefined);
    this.resolveExit?.(this.lastOutcome);
  }

  private pump(): void {
    if (this.turn || this.stopping || this.queue.length === 0) return;
    const batch = this.queue.splice(0);
    this.waiting = batch.flatMap((m) => (m.done ? [m.done] : []));
    const text = batch
      .map((m) => (m.from === "user" ? m.text : `[message from ${m.from}]\n${m.text}`))
      .join("\n\n");
    // A turn the person's words are part of is theirs; else its sender's (a schedule, another agent).
    const from = batch.some((m) => m.from === "user") ? undefined : batch[0]?.from;
    this.idleTimers.clear();
    this.collector.busy();
    this.board.set("running");
    const autonomy = this.options.autonomy;
    // run_tests() in the kernels falls back to the gates when the project names no test command.
    this.options.session.tree.gates = autonomy?.gates ?? [];
    this.turn = autonomy
      ? runAutonomously(this.options.session, text, { ...autonomy, afterGateRun: () => this.judge() }, from)
      : this.options.session.run(text, from);
    void this.turn.then((outcome) => {
      // An autonomous run's last attempt has just ended: judge the edits its work bears on.
      if (autonomy) this.judge();
      this.afterTurn(outcome);
    });
  }

  private waiting: ((outcome: AutonomousOutcome) => void)[] = [];
  /** Notifications of ended turns, in order; the session closes after them. */
  private notices: Promise<void> = Promise.resolve();

  /** The work can be judged here: verdicts on harness edits (docs/harness.md, "Verdicts"). */
  private judge(): void {
    this.options.session.hooks?.judgeWork?.();
  }

  get autonomy(): AutonomySettings | undefined {
    return this.options.autonomy;
  }

  private afterTurn(outcome: AutonomousOutcome): void {
    // Heard wherever the person is: the terminal UI's notification, the Notification hooks.
    const notice = outcomeNotice(outcome, this.options.title);
    if (notice && !this.stopping)
      this.notices = this.notices
        .then(() => notify(this.session, notice.kind, notice.text))
        .catch(() => undefined);
    this.turn = undefined;
    this.options.session.state.interruptNextRun = false;
    for (const done of this.waiting.splice(0)) done(outcome);
    this.lastOutcome = outcome;
    if (outcome.status === "done") this.board.set("idle");
    else if (outcome.status === "interrupted") this.board.set("interrupted", outcome.reason);
    else if (outcome.status === "stalled") this.board.set("idle", `paused: ${outcome.report}`);
    else this.board.set("failed", failureReason(outcome));
    if (!this.next()) this.collector.idle(); // the turn's garbage, before the next one (idle-gc.ts)
  }

  /** After a turn: messages that arrived too late for it start the next one (true), or the host idles. */
  private next(): boolean {
    for (const m of this.options.session.mailbox.takeUnread()) this.queue.push(m);
    if (this.queue.length > 0 && !this.stopping) {
      this.pump();
      return true;
    }
    if (this.options.detached && !this.stopping) this.armIdleTimers();
    return false;
  }

  private armIdleTimers(): void {
    this.idleTimers.clear();
    // Someone is watching: the session stays ready (timers start again when the last one leaves).
    if (this.clients.attached > 0) return;
    // A background child at work (rlm.spawn, not waited for) is the session's work too: the release
    // would close it mid-task. The timers start when the last one has ended (onEvent).
    if (this.options.session.children.running > 0) return;
    const handOff = this.options.handOffWhenIdle;
    this.idleTimers.arm(
      () =>
        void this.options.session.releaseKernel().then(() => {
          if (handOff && stubAvailable()) return this.handOff(handOff.exit);
          compactMemory();
        }),
      () => void this.idleExit(),
    );
  }

  /**
   * Hands the session's socket to a stub (src/host/handoff.ts) and ends this process: the session stays
   * reachable at a fraction of the memory, and the first client or the next scheduled tick brings the
   * host back. Stays up instead while anything is going on or a client is connected.
   */
  private async handOff(exit: () => void): Promise<void> {
    const server = this.server;
    if (!server || this.turn || this.stopping || this.queue.length > 0 || this.clients.attached > 0) return;
    if (!server.hold()) return; // a client is connected
    const deadline = this.idleTimers.deadline;
    this.stopping = true;
    this.idleTimers.clear();
    await this.closeSession();
    const next = this.scheduler.nextTickAt();
    // Ticks the stub's idle deadline would miss are the waker's to bring (it sees the stub as live).
    if (next !== undefined) await this.options.ensureWaker?.().catch(() => undefined);
    // From here to exit() nothing waits: a connection accepted meanwhile would be in no one's hands.
    const pid = startStub(
      server,
      {
        cwd: this.options.cwd,
        logPath: hostLogPath(this.options.home, this.id),
        revive: reviveArgs(this.id),
        idleExitAt: deadline,
        wakeAt: next,
      },
      splitKeys(process.env),
    );
    if (pid === undefined) {
      // No stub: the host exits as at its idle deadline (send, attach or a tick revive it).
      this.board.status = "done";
      this.board.write();
      await this.shutdownServer();
      return;
    }
    this.board.write(pid);
    this.peers?.close();
    exit();
    this.resolveExit?.(this.lastOutcome);
  }

  private async idleExit(): Promise<void> {
    if (this.turn || this.stopping) return;
    this.stopping = true;
    this.idleTimers.clear();
    await this.options.session.releaseKernel();
    await this.shutdown();
  }

  /**
   * A host method called from this process (line mode's slash commands): its params are checked as the
   * socket checks them, and the same handler answers, so it acts as a front end's call would.
   */
  readonly call: HostCall = (method, ...params) =>
    Promise.resolve()
      .then(() => this.answer(method, checkParams(method, params[0])))
      .then((result) => result as ResultOf<typeof method>);

  /** Answers one method; params were checked against src/host/protocol.ts (checkParams). */
  private answer(method: string, params: unknown): Promise<unknown> {
    const handler = this.handlers[method as keyof HostHandlers] as (p: unknown) => unknown;
    return Promise.resolve(handler(params));
  }
}
