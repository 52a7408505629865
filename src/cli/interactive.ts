import { createInterface } from "node:readline";
import { describeSpend } from "../agent/budget.js";
import type { EventSink } from "../agent/events.js";
import type { AgentSession } from "../agent/session.js";
import { resolveConfig } from "../config/config.js";
import { SessionHost } from "../host/host.js";
import { titleOf } from "../host/turn-words.js";
import { applyPendingLearn, learnSlash } from "../learning/commands/learn-slash.js";
import { refineSlash } from "../learning/commands/refine-slash.js";
import { EXIT } from "./exit-codes.js";
import { ProgressRenderer } from "./render.js";
import type { RunIo } from "./run.js";
import { resumeClaimed } from "./session-claim.js";
import { buildClient, prepareSession, type SessionFlags } from "./setup.js";
import { ensureWaker } from "./spawn-host.js";

const HELP = `Type a task and press Enter; end a line with \\ to continue it on the next line.
  /help   this text
  /refine [session|project|user]   review this session's work and propose harness edits (asks first)
  /heartbeat 10m "prompt"   re-enter this session every 10m with the prompt (also --at/--cron via relm schedule)
  /heartbeat off            cancel this session's heartbeats
  /goal "objective"         set the goal restated at every continuation and after compaction
  /autonomous on [gate...]  keep going until gates pass (or done() without gates); off; status
  /learn on|off|status      review the work during the session and keep checked lessons (session scope)
  /compact                  summarise the older turns now (the kernel keeps its variables)
  /undo                     put the files back as they were before the last turn that ran code
  /exit   leave (also Ctrl-D, or Ctrl-C twice)
Ctrl-C while the agent works interrupts the running cell or model call.`;

/** Line mode's start: a first message (`relm "task"`), and a saved session to continue (`--resume`). */
export interface InteractiveStart {
  task?: string;
  /** A full session id; it must not have a live host. */
  resumeId?: string;
}

/**
 * The plain line-based session of `relm` where the full-screen UI cannot be drawn (a pipe, TERM=dumb,
 * RELM_NO_TUI=1): one conversation and one kernel for as long as it runs. Lines typed while the agent
 * works are queued and run in order, so piped input works too.
 */
export async function interactive(
  flags: SessionFlags,
  io: RunIo,
  start: InteractiveStart = {},
): Promise<number> {
  const config = resolveConfig(io.env, flags);
  const client = buildClient(config);
  const renderer = new ProgressRenderer(io.stdout, { color: io.color, streamText: true });
  const rl = createInterface({ input: process.stdin, output: io.stdout as NodeJS.WriteStream, prompt: "› " });
  io.stdout.write(`relm · ${client.model} via ${client.provider} · ${io.cwd}\n/help for commands\n`);
  if (start.resumeId) io.stdout.write(`continuing session ${start.resumeId}\n`);

  let session: AgentSession | undefined;
  let host: SessionHost | undefined;
  let busy = false;
  let lastSigint = 0;
  let quitting = false;
  // /learn before the first message: the session starts with it.
  const pendingLearn: { learn?: boolean } = {};

  rl.on("SIGINT", () => {
    if (busy && host) {
      host.interrupt();
      return;
    }
    const now = Date.now();
    if (now - lastSigint < 2000 || rl.line.length === 0) {
      quitting = true;
      rl.close();
      return;
    }
    lastSigint = now;
    io.stdout.write("\n(Ctrl-C again to quit)\n");
    rl.prompt();
  });

  // Read line by line (not for-await) so /refine can take its y/N answer from the same stream.
  const lines = rl[Symbol.asyncIterator]();
  const nextLine = async () => {
    const next = await lines.next();
    return next.done ? undefined : (next.value as string);
  };
  // The first message of `relm "task"` is handled as if it had been typed at the prompt.
  let first = start.task;
  const nextInput = async () => {
    if (first === undefined) return nextLine();
    const task = first;
    first = undefined;
    return task;
  };
  let pending = "";
  if (start.task !== undefined) io.stdout.write(`› ${start.task}\n`);
  else rl.prompt();
  for (let raw = await nextInput(); raw !== undefined; raw = await nextInput()) {
    if (quitting) break;
    if (raw.endsWith("\\")) {
      pending += `${raw.slice(0, -1)}\n`;
      continue;
    }
    const line = (pending + raw).trim();
    pending = "";
    if (line === "/exit" || line === "/quit") break;
    if (line === "/help") io.stdout.write(`${HELP}\n`);
    else if (line === "/refine" || line.startsWith("/refine ")) {
      busy = true;
      try {
        await refineSlash(line.slice("/refine".length), session, config, io, async (question) => {
          io.stdout.write(question);
          return (await nextLine()) ?? "";
        });
      } catch (error) {
        io.stdout.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      } finally {
        busy = false;
      }
    } else if (line === "/learn" || line.startsWith("/learn ")) {
      io.stdout.write(`${learnSlash(line.slice("/learn".length), session, pendingLearn)}\n`);
    } else if (line === "/heartbeat" || line.startsWith("/heartbeat ")) {
      io.stdout.write(`${heartbeat(line.slice("/heartbeat".length).trim(), host)}\n`);
    } else if (/^\/(goal|autonomous|compact|undo)(\s|$)/.test(line)) {
      busy = true;
      try {
        const said = await longRunCommand(line, host);
        if (said) io.stdout.write(`${said}\n`);
      } finally {
        busy = false;
      }
    } else if (line.startsWith("/"))
      io.stdout.write(`unknown command ${line.split(" ")[0]}; /help lists them\n`);
    else if (line !== "") {
      busy = true;
      try {
        if (!session || !host) {
          const fanout: EventSink[] = [(e) => renderer.handle(e)];
          const sink: EventSink = (e) => {
            for (const s of fanout) s(e);
          };
          const withLearn = { ...flags, learn: pendingLearn.learn ?? flags.learn };
          // A saved session is taken (its lock bound) before its journal is opened: session-claim.ts.
          const claimed = start.resumeId
            ? await resumeClaimed(start.resumeId, withLearn, io, sink, { config })
            : undefined;
          session = claimed
            ? claimed.session
            : (await prepareSession(titleOf(line), withLearn, io, sink, { config })).session;
          applyPendingLearn(session, pendingLearn);
          // Hosted like any session: others can attach or send to it, and heartbeats re-enter it.
          const hosted = new SessionHost({
            home: config.home,
            session,
            title: session.journal.header.title,
            cwd: io.cwd,
            detached: false,
            ensureWaker: () => ensureWaker(config.home, io.env),
          });
          fanout.push((e) => hosted.onEvent(e));
          await hosted.listen(claimed?.server);
          host = hosted;
        }
        const outcome = await host.ask(line);
        if (outcome.status === "budget") io.stdout.write(`${outcome.stop.message}\n`);
        if (outcome.status === "error") io.stdout.write(`error: ${outcome.message}\n`);
      } catch (error) {
        io.stdout.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      } finally {
        busy = false;
      }
    }
    rl.prompt();
  }
  rl.close();
  if (session) {
    await (host ? host.finish() : session.close());
    io.stdout.write(`\nsession ${session.id} saved (${describeSpend(session.spent())})\n`);
  }
  return EXIT.done;
}

/** `/heartbeat 10m "prompt"` and `/heartbeat off`, on this session's host scheduler. */
function heartbeat(args: string, host: SessionHost | undefined): string {
  const scheduler = host?.session.tree.options.scheduler;
  if (!host || !scheduler) return "start the session with a first message, then add a heartbeat";
  if (args === "off") {
    const jobs = scheduler.list() as { id: string }[];
    for (const j of jobs) scheduler.cancel(j.id);
    return `cancelled ${jobs.length} heartbeat(s)`;
  }
  const match = /^(\S+)\s+(.+)$/.exec(args);
  if (!match) return 'usage: /heartbeat 10m "what to do at each beat"   (or /heartbeat off)';
  const prompt = (match[2] as string).replace(/^"(.*)"$/, "$1");
  try {
    const job = scheduler.add({ every: match[1] as string }, prompt) as { id: string; timing: string };
    return `heartbeat ${job.id}: ${job.timing}; /heartbeat off cancels it`;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/** /goal, /autonomous, /compact and /undo: the long-running controls of a hosted session. */
async function longRunCommand(line: string, host: SessionHost | undefined): Promise<string> {
  if (!host) return "start the session with a first message first";
  const [command, ...rest] = line.slice(1).split(/\s+/);
  const args = rest.join(" ").trim();
  const session = host.session;
  switch (command) {
    case "goal":
      if (!args) return session.goal ? `goal: ${session.goal}` : 'no goal: /goal "objective" sets one';
      session.setGoal(args.replace(/^"(.*)"$/, "$1"));
      return ""; // shown once, by its journal event's line ("◎ goal: …")
    case "autonomous": {
      const [mode, ...gates] = rest;
      if (mode === "on") {
        host.setAutonomy({ gates, unattended: false });
        return gates.length > 0
          ? `autonomous: on, done when ${gates.map((g) => `\`${g}\``).join(", ")} exit 0`
          : "autonomous: on, continuing until done() is called or a budget is spent";
      }
      if (mode === "off") {
        host.setAutonomy(undefined);
        return "autonomous: off";
      }
      const a = host.autonomy;
      return a
        ? `autonomous: on (${a.gates.length} gate(s): ${a.gates.join(", ") || "none"})`
        : "autonomous: off";
    }
    case "compact": {
      // A compaction that happened is shown once, by its journal event's line.
      const outcome = await session.compact(true);
      return outcome.compacted ? "" : outcome.message;
    }
    case "undo": {
      const result = await session.undo();
      // Done, it is shown once, by its journal event's line.
      return "error" in result ? result.error : "";
    }
    default:
      return `unknown command /${command}`;
  }
}
