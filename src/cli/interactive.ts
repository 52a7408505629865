import { createInterface } from "node:readline";
import { describeSpend, goOnPastBudget, outOfBudgetRefusal } from "../agent/budget/budget.js";
import type { Agent } from "../agent/core/agent.js";
import { commandFolders, expandCustomLine, loadCustomCommands, withCustom } from "../commands/custom.js";
import { runCommandLine } from "../commands/run.js";
import { commandsFor, findCommand, splitCommandLine } from "../commands/table.js";
import type { PendingStart } from "../commands/types.js";
import { resolveConfig } from "../config/config.js";
import type { SessionSpec } from "../config/options.js";
import type { SessionHost } from "../host/host.js";
import { hostSession } from "../host/host-session.js";
import { ensureWaker } from "../host/spawn.js";
import { titleOf } from "../host/turn-words.js";
import { LineApprovals } from "./approval-lines.js";
import { buildClient } from "./client.js";
import { EXIT } from "./exit-codes.js";
import { applyPending, lineContext, lineHelp, withPendingMode } from "./line-commands.js";
import { checkSessionSpec, sessionMode } from "./option-checks.js";
import { ProgressRenderer } from "./render.js";
import type { RunIo } from "./run.js";
import { resumeClaimed } from "./session-claim.js";
import { prepareSession } from "./setup.js";
import { registerSlashCommands } from "./slash-commands.js";
import { askProjectTrust } from "./trust-command.js";

/** Line mode's start: a first message (`relm "task"`), and a saved session to continue (`--resume`). */
interface InteractiveStart {
  task?: string;
  /** A full session id; it must not have a live host. */
  resumeId?: string;
}

/**
 * The plain line-based session of `relm` where the full-screen UI cannot be drawn (a pipe, TERM=dumb,
 * RELM_NO_TUI=1): one conversation and one kernel for as long as it runs. Lines typed while the agent
 * works are queued and run in order, so piped input works too.
 */
export async function interactive(flags: SessionSpec, io: RunIo, start: InteractiveStart): Promise<number> {
  registerSlashCommands();
  const config = resolveConfig(io.env, flags);
  // The session starts at the first message: its options are checked now, so a mistake shows at once.
  checkSessionSpec(flags, io, config);
  const client = buildClient(config);
  const renderer = new ProgressRenderer(io.stdout, { color: io.color, streamText: true });
  const rl = createInterface({ input: process.stdin, output: io.stdout as NodeJS.WriteStream, prompt: "› " });
  // A new session's mode (a resumed one runs in the mode it remembers); a bad mode word stops here.
  const mode = start.resumeId ? "" : ` · mode ${sessionMode(flags, config, io.env).mode}`;
  io.stdout.write(`relm · ${client.model} via ${client.via} · ${io.cwd}${mode}\n/help for commands\n`);
  if (start.resumeId) io.stdout.write(`continuing session ${start.resumeId}\n`);

  let session: Agent | undefined;
  let host: SessionHost | undefined;
  let busy = false;
  let lastSigint = 0;
  let quitting = false;
  // /goal, /autonomous, /model and /learn before the first message: the session starts with them.
  const pending: PendingStart = {};

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
  const context = lineContext({ out: io.stdout, host: () => host, pending, nextLine });
  // Project files that steer the host are used once trusted: a person at a terminal is asked now.
  if (process.stdin.isTTY) await askProjectTrust(io, config.home, context.confirm);
  // The first message of `relm "task"` is handled as if it had been typed at the prompt.
  let first = start.task;
  const nextInput = async () => {
    if (first === undefined) return nextLine();
    const task = first;
    first = undefined;
    return task;
  };
  // A request of the agent's kernel waiting for a person: the next line typed answers it, read here
  // while the turn that asked waits (docs/sandbox.md, "Approvals").
  let answering = false;
  const approvals = new LineApprovals(context.call, (text) => void io.stdout.write(text));
  const answerApprovals = async () => {
    if (answering) return;
    answering = true;
    try {
      await approvals.refresh();
      while (approvals.asking) {
        io.stdout.write("answer› ");
        const reply = await nextLine();
        if (reply === undefined) break;
        await approvals.answerLine(reply);
      }
    } finally {
      answering = false;
    }
  };
  const commands = withCustom(commandsFor("line"), loadCustomCommands(commandFolders(io.cwd, config.home)));
  let continued = "";
  if (start.task !== undefined) io.stdout.write(`› ${start.task}\n`);
  else rl.prompt();
  for (let raw = await nextInput(); raw !== undefined; raw = await nextInput()) {
    if (quitting) break;
    if (raw.endsWith("\\")) {
      continued += `${raw.slice(0, -1)}\n`;
      continue;
    }
    const typed = (continued + raw).trim();
    continued = "";
    // A custom command (.relm/commands/NAME.md) is sent as the message its file expands to.
    const custom = expandCustomLine(commands, typed);
    if (custom) io.stdout.write(`/${custom.command.name} → ${custom.command.file}\n`);
    const line = custom ? custom.text : typed;
    const command =
      !custom && line.startsWith("/") ? (splitCommandLine(line) ?? { name: "", rest: "" }) : undefined;
    if (command && findCommand(commands, command.name)?.name === "quit") break;
    if (command) {
      busy = true;
      try {
        await runCommandLine(context, commands, line, {
          help: () => void io.stdout.write(`${lineHelp(commands)}\n`),
        });
      } finally {
        busy = false;
      }
    } else if (line !== "") {
      busy = true;
      try {
        if (!session || !host) {
          const startFlags = withPendingMode(flags, pending); // a /mode given before the first message
          // Hosted like any session: others can attach or send to it, and heartbeats re-enter it.
          const hosted = await hostSession(
            (sink) =>
              // A saved session is taken (its lock bound) before its journal is opened: session-claim.ts.
              start.resumeId
                ? resumeClaimed(start.resumeId, startFlags, io, sink, { config })
                : prepareSession(titleOf(line), startFlags, io, sink, { config }),
            () => ({
              home: config.home,
              cwd: io.cwd,
              detached: false,
              ensureWaker: () => ensureWaker(config.home, io.env),
            }),
            [
              (e) => renderer.handle(e),
              (e) => {
                if (e.type === "approval_request") void answerApprovals();
              },
            ],
          );
          session = hosted.opened.session;
          host = hosted.host;
          await applyPending(host.call, pending);
        }
        // Out of budget, the message is refused as the host refuses a send (a turn would only stop).
        const over = session.budget.check();
        const outcome = over ? undefined : await host.ask(line);
        if (over) io.stdout.write(`${outOfBudgetRefusal(session.id, over, "attached")}\n`);
        // The stop itself was shown with the turn's events: what is left to say is how to go on.
        if (outcome?.status === "budget")
          io.stdout.write(`to go on: ${goOnPastBudget(session.id, outcome.stop, "attached")}\n`);
        if (outcome?.status === "error") io.stdout.write(`error: ${outcome.message}\n`);
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
