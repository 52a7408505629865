import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import type { AgentEvent } from "../../agent/core/events.js";
import { relmHomeFrom } from "../../config/config.js";
import { UsageError, UserError } from "../../config/errors.js";
import { messageTooLong } from "../../host/inbound.js";
import { activeJobs, allJobs } from "../../host/schedules/schedules.js";
import { wakerRunning } from "../../host/schedules/waker.js";
import { SessionHandle } from "../../host/session-handle.js";
import { describe, listSessions } from "../../host/states/discovery.js";
import { stopHeldByStub } from "../../host/stub-stop.js";
import {
  JOURNAL_FILE,
  readJournal,
  resolveAgent,
  resolveSessionId,
  SessionNotFoundError,
  sessionsDir,
} from "../../session/index.js";

export { agentsAction } from "./agents-list.js";

import { LineApprovals } from "../approval-lines.js";
import { EXIT } from "../exit-codes.js";
import { askOnce, cancelled, QuestionCancelled } from "../question.js";
import { ProgressRenderer } from "../render.js";
import type { RunIo } from "../run.js";
import { sayPaused } from "../schedules/actions.js";

/**
 * RELM_HOME and the full id of the session `prefix` names. A sub-agent's id (relm prints them) is no
 * session of its own, with no host to attach to, send to or stop: the error names its session instead.
 */
function sessionOf(io: RunIo, prefix: string, command: string): { home: string; id: string } {
  const home = relmHomeFrom(io.env);
  try {
    return { home, id: resolveSessionId(sessionsDir(home), prefix) };
  } catch (error) {
    if (!(error instanceof SessionNotFoundError)) throw error;
    const agent = resolveAgent(sessionsDir(home), prefix);
    const child = basename(agent.dir);
    throw new UsageError(
      `${child} is a sub-agent of session ${agent.root}, which has the host: relm ${command} ${agent.root} ` +
        `(its sub-agents included); relm logs ${child} prints this sub-agent's own transcript`,
    );
  }
}

/** Prints events as the progress view does, or as JSON lines. */
function printer(io: RunIo, json: boolean): (event: AgentEvent) => void {
  // Live output too: a running cell's output shows as it comes (the host replays what came before).
  const renderer = new ProgressRenderer(io.stdout, {
    color: io.color,
    streamText: false,
    printFinal: true,
    liveOutput: true,
    showMessages: true,
  });
  return json ? (e) => io.stdout.write(`${JSON.stringify(e)}\n`) : (e) => renderer.handle(e);
}

const TURN_ENDS = new Set(["final", "budget_stop", "error", "model_error", "interrupted"]);
/** How often `logs --follow` asks a host whose turn has ended whether it is idle yet. */
const IDLE_LOOK_MS = 50;

/**
 * A handle that follows a live host: replay of what is missing, then live events, until it closes, or
 * with `untilIdle`, until the session has no work left (`logs --follow` ends with the task). Connect or
 * revive the handle, then run() follows until the end.
 */
function follower(io: RunIo, home: string, id: string, emit: (e: AgentEvent) => void, untilIdle = false) {
  const idle = async () => {
    const state = await handle.call("status").catch(() => undefined);
    return state !== undefined && state.status !== "running" && state.status !== "waiting";
  };
  // The host marks itself idle a moment after a turn's last event (once the turn's work is saved), and
  // on a busy machine that moment can be long: after a turn ends, look until it is idle or the next turn
  // starts. One look 50 ms later left `logs --follow` waiting for the host to exit.
  let turnOver = false;
  let watching = false;
  let replayed = false; // events before attach's answer are history: a turn ended there says nothing
  const watchForIdle = async () => {
    if (watching) return;
    watching = true;
    while (turnOver && handle.live) {
      await new Promise((r) => setTimeout(r, IDLE_LOOK_MS));
      if (turnOver && handle.live && (await idle())) {
        handle.close();
        break;
      }
    }
    watching = false;
  };
  const handle = new SessionHandle({
    home,
    id,
    env: io.env,
    onEvent: (event) => {
      emit(event);
      if (!untilIdle || event.agent) return;
      if (TURN_ENDS.has(event.type)) {
        turnOver = true;
        if (replayed) void watchForIdle();
      } else if (event.type === "user" || event.type === "model_request") turnOver = false;
    },
  });
  const run = async () => {
    replayed = true;
    if (untilIdle && (await idle())) handle.close();
    else if (turnOver) void watchForIdle(); // the last turn ended as we attached; its host is not idle yet
    await handle.closed;
  };
  return { handle, run };
}

export async function logsAction(
  io: RunIo,
  prefix: string,
  flags: { follow?: boolean; json?: boolean },
): Promise<number> {
  const home = relmHomeFrom(io.env);
  const agent = resolveAgent(sessionsDir(home), prefix);
  const emit = printer(io, Boolean(flags.json));
  const child = basename(agent.dir);
  if (child !== agent.root) {
    // A sub-agent's own journal; live, it is followed as part of its session (the host publishes it).
    for (const event of readJournal(join(agent.dir, JOURNAL_FILE)).events) emit(event as AgentEvent);
    if (flags.follow)
      io.stderr.write(
        `relm: that is ${child}'s transcript so far; relm logs ${agent.root} --follow follows its session live (this sub-agent included)\n`,
      );
    return EXIT.done;
  }
  const id = agent.root;
  const follow = follower(io, home, id, emit, true);
  if (flags.follow && (await follow.handle.connect())) await follow.run();
  else follow.handle.replayJournal();
  return EXIT.done;
}

export async function sendAction(io: RunIo, prefix: string, words: string[]): Promise<number> {
  const { home, id } = sessionOf(io, prefix, "send");
  const text = words.join(" ");
  // Checked here for both ways below: a session that is not running is revived with the message as its
  // task, which no host's send check sees (a blank one started a turn on nothing, as it did when live).
  if (text.trim() === "") throw new UsageError(`the message is blank: relm send ${id} "what to tell it"`);
  const tooLong = messageTooLong(text);
  if (tooLong) throw new UserError(tooLong);
  const handle = new SessionHandle({ home, id, env: io.env });
  const live = await handle.connect({ follow: false });
  // A session that is not running is brought back first and then sent the message, as the terminal UI
  // does: the revived host answers it like a live one (a session out of budget refuses it, saying so).
  if (!live) await handle.revive({ follow: false });
  let result: Awaited<ReturnType<typeof handle.send>>;
  try {
    result = await handle.send(text);
  } finally {
    handle.close(); // a refused message too: the open connection would keep the command running
  }
  io.stderr.write(
    live
      ? `sent to ${id}: delivered ${result.delivered}\n`
      : `session ${id} was not running: resumed it with your message\n`,
  );
  return EXIT.done;
}

export async function stopAction(io: RunIo, prefix: string): Promise<number> {
  const { home, id } = sessionOf(io, prefix, "stop");
  if (!(await askToStop(home, id))) {
    io.stderr.write(`relm: session ${id} is not running; nothing to stop\n`);
    return EXIT.error;
  }
  io.stderr.write(`stopped ${id}\n`);
  return EXIT.done;
}

export async function statusAction(io: RunIo): Promise<number> {
  const home = relmHomeFrom(io.env);
  const live = (await listSessions(home)).filter((s) => s.live);
  for (const s of live) io.stdout.write(`${s.id}  ${s.status.padEnd(11)} pid ${s.pid}  ${s.title}\n`);
  if (live.length === 0) io.stdout.write("no live sessions\n");
  const jobs = allJobs(home).filter((j) => !j.cancelled && j.next);
  const active = activeJobs(jobs);
  const waker = await wakerRunning(home);
  io.stdout.write(
    `${jobs.length} scheduled job(s); waker ${waker ? "running" : "not running"}` +
      `${active.length > 0 && !waker ? " (relm doctor --fix starts it)" : ""}\n`,
  );
  sayPaused(io.stdout, jobs);
  return EXIT.done;
}

/**
 * Asks the session to stop (its stub, or its host through the socket, waiting until the host has let
 * the connection go); false when nothing answered on the socket.
 */
export async function askToStop(home: string, id: string): Promise<boolean> {
  if (await stopHeldByStub(home, id)) return true;
  const handle = new SessionHandle({ home, id });
  if (!(await handle.connect({ follow: false }))) return false;
  await handle.stop();
  return true;
}

/**
 * The plain attach view: history and live events, and a prompt line whose lines are sent to the
 * session. A session that is not running shows its history; an interrupted one can be resumed.
 */
export async function attachAction(io: RunIo, prefix: string, flags: { json?: boolean }): Promise<number> {
  const { home, id } = sessionOf(io, prefix, "attach");
  const print = printer(io, Boolean(flags.json));
  // The handle is made below (its events reach `approvals`); its calls are looked up when made.
  const approvals = new LineApprovals(
    (method, ...params) => handle.call(method, ...params),
    (text) => void io.stderr.write(text),
  );
  const emit = (event: AgentEvent) => {
    print(event);
    approvals.onEvent(event);
  };
  const { handle, run } = follower(io, home, id, emit);
  if (!(await handle.connect())) {
    handle.replayJournal();
    const listing = await describe(home, id);
    const status = listing?.status ?? "unknown";
    const interactive = Boolean(process.stdin.isTTY);
    if (!interactive) {
      io.stderr.write(`session ${id} is ${status}; relm send ${id} "..." continues it\n`);
      return EXIT.done;
    }
    // Attaching is one of the ways an exited session comes back (send and a due schedule are the others).
    const interrupted = status === "interrupted";
    const question = interrupted
      ? "was interrupted. Resume it now? [Y/n] "
      : `is ${status}. Reopen it to continue? [y/N] `;
    let answer: string;
    try {
      answer = await askOnce(`session ${id} ${question}`, io.stderr);
    } catch (error) {
      if (!(error instanceof QuestionCancelled)) throw error;
      return cancelled(io.stderr, "attach cancelled; the session was left as it was");
    }
    if (interrupted ? /^n/i.test(answer) : !/^y/i.test(answer)) return EXIT.done;
    await handle.revive({ message: interrupted ? "Continue the task where you left off." : undefined });
  }
  // A request waiting for a person is shown with its question; the next line typed answers it.
  void approvals.refresh();
  const rl = createInterface({ input: process.stdin });
  rl.on("line", (text) => {
    if (!text.trim()) return;
    if (approvals.asking) {
      void approvals.answerLine(text);
      return;
    }
    void handle.send(text).catch((e: Error) => io.stderr.write(`${e.message}\n`));
  });
  rl.on("SIGINT", () => handle.close());
  await run();
  rl.close();
  io.stderr.write(`\nsession ${id}: its host stopped; relm agents shows its status\n`);
  return EXIT.done;
}
