import { constants as osConstants } from "node:os";
import { describeSpend, goOnPastBudget } from "../agent/budget/budget.js";
import type { AgentEvent, EventSink } from "../agent/core/events.js";
import type { AutonomousOutcome, AutonomySettings } from "../agent/gates/autonomy.js";
import { UsageError } from "../config/errors.js";
import { numberOf, type SessionSpec } from "../config/options.js";
import { terminalText } from "../config/text.js";
import { hostSession } from "../host/host-session.js";
import { RedactedEvents } from "../host/redacted-events.js";
import type { SessionServer } from "../host/server.js";
import { ensureWaker } from "../host/spawn.js";
import { titleOf } from "../host/turn-words.js";
import type { Claim } from "./claim.js";
import { EXIT } from "./exit-codes.js";
import { ProgressRenderer } from "./render.js";
import { resumeClaimed } from "./session-claim.js";
import {
  type CliIo,
  type PreparedSession,
  prepareSession,
  resumeSession,
  type SessionOverrides,
} from "./setup.js";

export interface RunIo extends CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  color: boolean;
}

/** The exit code of each way a run ends (ARCHITECTURE.md); none (nothing ran) is done, anything else an error. */
const EXIT_OF: Partial<Record<AutonomousOutcome["status"], number>> = {
  done: EXIT.done,
  budget: EXIT.budget,
  gates_failing: EXIT.gatesFailing,
  interrupted: EXIT.interrupted,
};

function exitCodeFor(outcome: AutonomousOutcome | undefined): number {
  return outcome ? (EXIT_OF[outcome.status] ?? EXIT.error) : EXIT.done;
}

const stdoutWatched = new WeakSet<NodeJS.WritableStream>();
let onStdoutGone: (() => void) | undefined;

/**
 * `then` when `stdout`'s reader has gone (EPIPE). One listener a stream, kept to the end (later writes
 * fail too, and main.ts exits 0 at an EPIPE nobody else listens for); the latest run's `then` is called.
 */
function whenStdoutGone(stdout: NodeJS.WritableStream, then: () => void): void {
  onStdoutGone = then;
  if (stdoutWatched.has(stdout)) return;
  stdoutWatched.add(stdout);
  stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") onStdoutGone?.();
  });
}

/**
 * `relm run`: one task, answered on stdout, progress on stderr (or every event as JSON on stdout). The
 * run is a session host while it lasts, so `relm attach` and `relm send` reach it from other terminals.
 * The first Ctrl-C interrupts the work and ends the run with 130; a second one exits at once.
 */
export async function runOnce(
  task: string | undefined,
  flags: SessionSpec,
  io: RunIo,
  overrides: SessionOverrides = {},
  onSession?: (id: string) => void,
  claimed?: Claim,
): Promise<number> {
  // stdout closed by its reader (`relm run --json | head`): main.ts's exit(0) left the session marked
  // running, its socket behind. Ended as a SIGPIPE would, from the first event on.
  let ended: NodeJS.Signals | undefined;
  let interrupt = () => {};
  whenStdoutGone(io.stdout, () => {
    if (ended) return;
    ended = "SIGPIPE";
    interrupt();
  });
  const renderer = new ProgressRenderer(io.stderr, { color: io.color, streamText: false });
  const json = new RedactedEvents((event) => io.stdout.write(`${JSON.stringify(event)}\n`));
  let autonomyReport: string | undefined;
  // Errors the progress view has already shown (✗ …): the closing report does not repeat them.
  const shown = new Set<string>();
  const sinks: EventSink[] = [
    flags.json ? json.sink : (event: AgentEvent) => renderer.handle(event),
    (event) => {
      if (event.type === "autonomy_end" && !event.agent) autonomyReport = event.report;
      if ((event.type === "model_error" || event.type === "error") && !event.agent) shown.add(event.message);
    },
  ];
  const { host, opened } = await hostSession(
    async (sink) => {
      // A resumed session is taken (its lock bound) before its journal is opened: see session-claim.ts.
      const opened = await open(task, flags, io, sink, overrides, { claim: claimed ?? true });
      json.use(opened.session.tree.options.secrets);
      onSession?.(opened.session.id);
      return opened;
    },
    ({ config, flags }) => ({
      home: config.home,
      cwd: io.cwd,
      detached: false,
      autonomy: autonomyFrom(flags, false),
      ensureWaker: () => ensureWaker(config.home, io.env),
    }),
    sinks,
  );
  const { session, text } = opened;
  flags = opened.flags; // a resumed session's, with what it remembers
  if (flags.goal) session.goal.set(flags.goal);

  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts === 1) {
      io.stderr.write("\ninterrupting… (Ctrl-C again to quit now)\n");
      session.interrupt();
    } else {
      process.exit(EXIT.interrupted);
    }
  };
  // SIGTERM and SIGHUP (a closed terminal) end the run as a Ctrl-C does: the work interrupted, the
  // session saved and the way back said; the exit code still names the signal (128 + its number).
  interrupt = () => session.interrupt();
  const onEnd = (signal: NodeJS.Signals) => {
    if (ended) process.exit(128 + osConstants.signals[ended]);
    ended = signal;
    interrupt();
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onEnd);
  process.on("SIGHUP", onEnd);
  let outcome: AutonomousOutcome | undefined;
  try {
    host.start(text);
    if (ended) interrupt();
    await host.finish();
    outcome = await host.exited;
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onEnd);
    process.off("SIGHUP", onEnd);
  }

  json.end();
  // The outcome is the agent's own (a parent's kernel gets a child's as it is); what is printed is
  // redacted as the journal's copy is.
  if (!flags.json) report(outcome, session.id, io, autonomyReport, shown, (t) => session.journal.redact(t));
  return ended ? 128 + osConstants.signals[ended] : exitCodeFor(outcome);
}

function report(
  outcome: AutonomousOutcome | undefined,
  id: string,
  io: RunIo,
  autonomyReport: string | undefined,
  shown: ReadonlySet<string>,
  redact: (text: string) => string,
): void {
  if (autonomyReport) io.stderr.write(`relm: ${redact(autonomyReport).trimEnd()}\n`);
  if (outcome?.status === "done") {
    // Piped, the answer is data, as it is; at a terminal its escape sequences would act on it (OSC 52).
    const redacted = redact(outcome.text);
    const text = (io.stdout as { isTTY?: boolean }).isTTY ? terminalText(redacted) : redacted;
    io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    return;
  }
  if (autonomyReport) {
    // Already said above, in the words of the autonomous run's own report.
  } else if (outcome?.status === "budget") {
    io.stderr.write(`relm: ${redact(outcome.stop.message)}; spent ${describeSpend(outcome.stop.spent)}\n`);
  } else if (outcome?.status === "error" && !shown.has(redact(outcome.message))) {
    io.stderr.write(`relm: ${redact(outcome.message)}\n`);
  }
  const resume =
    outcome?.status === "budget" ? goOnPastBudget(id, outcome.stop, "ended") : `relm run --resume ${id}`;
  io.stderr.write(`session ${id}: relm export ${id} --format md, or ${resume}\n`);
}

/**
 * A new session for the task, or a saved one continued (with what the model must hear first). With
 * `claim`, a saved session is first taken for this process, and `server` is its bound socket; without
 * it the caller holds the session already (a detached host binds its socket first thing).
 */
async function open(
  task: string | undefined,
  flags: SessionSpec,
  io: RunIo,
  sink: EventSink,
  overrides: SessionOverrides,
  options: { id?: string; claim?: true | Claim } = {},
): Promise<OpenedRun> {
  if (flags.resume) {
    // The session prepends what the resume found (in-flight work, restored variables) to this text.
    const text = task ?? "Continue the task where you left off.";
    const { claim } = options;
    const resumed = claim
      ? resumeClaimed(claim === true ? flags.resume : claim, flags, io, sink, overrides)
      : resumeSession(flags.resume, flags, io, sink, overrides);
    return { ...(await resumed), text };
  }
  // The terminal UI may start a session before its first message (to set a goal first): it waits.
  if (!task && !flags.interactive) throw new UsageError('no task given: relm run "what to do"');
  const prepared = await prepareSession(task ? titleOf(task) : "", flags, io, sink, overrides, options.id);
  return { ...prepared, text: task ?? "", flags };
}

/**
 * The session with its first message (`text`), the options given or a resumed session's with what it
 * remembers (`flags`), and its socket when a saved session was claimed (`server`).
 */
type OpenedRun = PreparedSession & { text: string; flags: SessionSpec; server?: SessionServer };

/**
 * The detached host (started by `relm run --detach` or revived by send / attach / a schedule): runs the
 * task if there is one, then serves the session until it has been idle for a while. Output goes to the
 * session's host.log.
 */
export async function runAsHost(
  task: string | undefined,
  flags: SessionSpec,
  io: RunIo,
  bound: SessionServer,
): Promise<number> {
  const renderer = new ProgressRenderer(io.stderr, { color: false, streamText: false });
  const id = flags.asHost as string;
  const resuming = Boolean(flags.resume);
  const { host, opened } = await hostSession(
    async (sink) => ({
      ...(await open(task, { ...flags, resume: resuming ? id : undefined }, io, sink, {}, { id })),
      server: bound,
    }),
    ({ config, flags }) => ({
      home: config.home,
      cwd: io.cwd,
      detached: true,
      idleExitMs: idleMsOf(flags) ?? config.idleTimeoutMs,
      kernelIdleMs: config.kernelIdleTimeoutMs,
      autonomy: autonomyFrom(flags, true),
      ensureWaker: () => ensureWaker(config.home, io.env),
      interactive: flags.interactive === true,
      // Idle with its kernel freed, the host leaves a stub holding the socket (src/host/handoff.ts) and
      // ends here at once: its event loop must not turn again, or it could accept a connection.
      handOffWhenIdle: { exit: () => process.exit(0) },
    }),
    [(event) => renderer.handle(event)],
  );
  const { session, text } = opened;
  flags = opened.flags; // a resumed session's, with what it remembers
  if (flags.goal && !flags.resume) session.goal.set(flags.goal);
  const stop = () => void host.stop("the host was asked to stop (signal)");
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.on("SIGHUP", () => {});
  // A resumed session waits for work instead of inventing a turn, unless `relm run --detach --resume`
  // asked it to continue what was left half done: revived for a person's message (the terminal UI, the
  // web UI, an editor) or a tick, that message is the turn, and the resume note goes with it. So does a
  // new one the terminal UI started without a first message.
  const waitForWork = resuming ? !task && (session.settledAtResume || !flags.continueWork) : !task;
  if (waitForWork) host.idle();
  else {
    // The UI that started this host is about to attach: its first turn's streamed text is for it.
    if (flags.awaitClient) await host.clients.first(FIRST_CLIENT_WAIT_MS);
    host.start(text);
  }
  const outcome = await host.exited;
  return exitCodeFor(outcome);
}

/** `--idle-timeout SECONDS` in milliseconds, when given. */
function idleMsOf(flags: SessionSpec): number | undefined {
  const seconds = numberOf(flags, "idleTimeout");
  return seconds === undefined ? undefined : seconds * 1000;
}

/** How long an --interactive host with a first message waits for the UI that started it to attach. */
const FIRST_CLIENT_WAIT_MS = 5_000;

/**
 * Autonomous mode for `relm run`: on with --autonomous or any --gate. A detached autonomous run is
 * unattended (nobody is there to answer), unless the terminal UI started it (--interactive).
 */
export function autonomyFrom(flags: SessionSpec, detached: boolean): AutonomySettings | undefined {
  const gates = flags.gate ?? [];
  if (!flags.autonomous && gates.length === 0) return undefined;
  return {
    gates,
    gateTimeoutMs: (numberOf(flags, "gateTimeout") ?? 300) * 1000,
    maxGateFailures: numberOf(flags, "maxGateFailures"),
    unattended: flags.unattended === true || (detached && !flags.interactive),
  };
}
