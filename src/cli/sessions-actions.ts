import { createInterface } from "node:readline";
import type { AgentEvent } from "../agent/events.js";
import { relmHomeFrom } from "../config/config.js";
import { UsageError } from "../config/errors.js";
import { SessionClient } from "../host/client.js";
import { describe, listSessions, type SessionListing } from "../host/discovery.js";
import { activeJobs, allJobs } from "../host/schedules.js";
import { stopHeldByStub } from "../host/stub-stop.js";
import { wakerRunning } from "../host/waker.js";
import { JOURNAL_FILE, readJournal, resolveSessionId, sessionDir, sessionsDir } from "../session/index.js";

export { agentsAction } from "./agents-list.js";

import { EXIT } from "./exit-codes.js";
import { ProgressRenderer } from "./render.js";
import type { RunIo } from "./run.js";
import { pausedNote } from "./schedule-actions.js";
import { reviveHost } from "./spawn-host.js";

function resolve(home: string, prefix: string): string {
  return resolveSessionId(sessionsDir(home), prefix);
}

/** Prints events as the progress view does, or as JSON lines. */
function printer(io: RunIo, json: boolean): (event: AgentEvent) => void {
  const renderer = new ProgressRenderer(io.stdout, { color: io.color, streamText: false, printFinal: true });
  return json ? (e) => io.stdout.write(`${JSON.stringify(e)}\n`) : (e) => renderer.handle(e);
}

/** Replays the journal file (no host needed) and returns the last event number. */
function replayFile(home: string, id: string, emit: (e: AgentEvent) => void): number {
  const { events } = readJournal(`${sessionDir(home, id)}/${JOURNAL_FILE}`);
  for (const e of events) emit(e as AgentEvent);
  return events.at(-1)?.n ?? 0;
}

const TURN_ENDS = new Set(["final", "budget_stop", "error", "model_error", "interrupted"]);
/** How often `logs --follow` asks a host whose turn has ended whether it is idle yet. */
const IDLE_LOOK_MS = 50;

/**
 * Follows a live host from event `after`: replay of what is missing, then live events, until it closes,
 * or with `untilIdle`, until the session has no work left (`logs --follow` ends with the task).
 */
async function follow(
  client: SessionClient,
  after: number,
  emit: (e: AgentEvent) => void,
  untilIdle = false,
): Promise<void> {
  let closed = false;
  void client.closed.then(() => {
    closed = true;
  });
  const idle = async () => {
    const state = await client.call<{ status: string }>("status").catch(() => undefined);
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
    while (turnOver && !closed) {
      await new Promise((r) => setTimeout(r, IDLE_LOOK_MS));
      if (turnOver && !closed && (await idle())) {
        client.close();
        break;
      }
    }
    watching = false;
  };
  client.onNotification((n) => {
    if (n.method !== "event") return;
    const event = n.params as AgentEvent;
    emit(event);
    if (!untilIdle || event.agent) return;
    if (TURN_ENDS.has(event.type)) {
      turnOver = true;
      if (replayed) void watchForIdle();
    } else if (event.type === "user" || event.type === "model_request") turnOver = false;
  });
  await client.call("attach", { after });
  replayed = true;
  if (untilIdle && (await idle())) client.close();
  else if (turnOver) void watchForIdle(); // the last turn ended as we attached; its host is not idle yet
  await client.closed;
}

export async function logsAction(
  io: RunIo,
  prefix: string,
  flags: { follow?: boolean; json?: boolean },
): Promise<number> {
  const home = relmHomeFrom(io.env);
  const id = resolve(home, prefix);
  const emit = printer(io, Boolean(flags.json));
  const client = flags.follow ? await SessionClient.connect(home, id) : undefined;
  if (client) await follow(client, 0, emit, true);
  else replayFile(home, id, emit);
  return EXIT.done;
}

export async function attachAction(io: RunIo, prefix: string, flags: { json?: boolean }): Promise<number> {
  const home = relmHomeFrom(io.env);
  return attach(home, resolve(home, prefix), io, Boolean(flags.json));
}

export async function sendAction(io: RunIo, prefix: string, words: string[]): Promise<number> {
  const home = relmHomeFrom(io.env);
  const id = resolve(home, prefix);
  const text = words.join(" ");
  const client = await SessionClient.connect(home, id);
  if (client) {
    const result = await client.call<{ delivered: string }>("send", { text });
    client.close();
    io.stderr.write(`sent to ${id}: delivered ${result.delivered}\n`);
  } else {
    await reviveHost(home, id, io.env, text);
    io.stderr.write(`session ${id} was not running: resumed it with your message\n`);
  }
  return EXIT.done;
}

export async function stopAction(io: RunIo, prefix: string): Promise<number> {
  const home = relmHomeFrom(io.env);
  return (await stopSession(home, resolve(home, prefix), io)) ? EXIT.done : EXIT.error;
}

export async function statusAction(io: RunIo): Promise<number> {
  const home = relmHomeFrom(io.env);
  const live = (await listSessions(home)).filter((s) => s.live);
  io.stdout.write(live.length === 0 ? "no live sessions\n" : `${live.map(line).join("\n")}\n`);
  const jobs = allJobs(home).filter((j) => !j.cancelled && j.next);
  const active = activeJobs(jobs);
  const waker = await wakerRunning(home);
  io.stdout.write(
    `${jobs.length} scheduled job(s); waker ${waker ? "running" : "not running"}` +
      `${active.length > 0 && !waker ? " (relm doctor --fix starts it)" : ""}\n`,
  );
  const paused = pausedNote(jobs);
  if (paused) io.stdout.write(`${paused}\n`);
  return EXIT.done;
}

function line(s: SessionListing): string {
  return `${s.id}  ${s.status.padEnd(11)} pid ${s.pid}  ${s.title}`;
}

export async function stopSession(home: string, id: string, io: RunIo): Promise<boolean> {
  if (await stopHeldByStub(home, id)) {
    io.stderr.write(`stopped ${id}\n`);
    return true;
  }
  const client = await SessionClient.connect(home, id);
  if (!client) {
    io.stderr.write(`session ${id} is not running\n`);
    return false;
  }
  await client.call("stop", {});
  await client.closed;
  io.stderr.write(`stopped ${id}\n`);
  return true;
}

/**
 * The plain attach view: history and live events, and a prompt line whose lines are sent to the
 * session. A session that is not running shows its history; an interrupted one can be resumed.
 */
async function attach(home: string, id: string, io: RunIo, json: boolean): Promise<number> {
  const emit = printer(io, json);
  let client = await SessionClient.connect(home, id);
  let last = 0;
  if (!client) {
    last = replayFile(home, id, emit);
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
    const answer = await ask(`session ${id} ${question}`);
    if (interrupted ? /^n/i.test(answer) : !/^y/i.test(answer)) return EXIT.done;
    await reviveHost(home, id, io.env, interrupted ? "Continue the task where you left off." : undefined);
    client = await SessionClient.connect(home, id);
    if (!client) throw new UsageError(`session ${id} did not come back up; see relm logs ${id}`);
  }
  const connected = client;
  const rl = createInterface({ input: process.stdin });
  rl.on("line", (text) => {
    if (text.trim())
      void connected.call("send", { text }).catch((e: Error) => io.stderr.write(`${e.message}\n`));
  });
  rl.on("SIGINT", () => connected.close());
  await follow(connected, last, emit);
  rl.close();
  io.stderr.write(`\nsession ${id}: its host stopped; relm agents shows its status\n`);
  return EXIT.done;
}

function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close();
      resolve(answer);
    }),
  );
}
