import type { Command } from "commander";
import { attachUsesUi, openTui, terminalOf } from "../front-end.js";
import type { RunIo } from "../run.js";

type SetExit = (code: number) => void;

/** `relm agents|logs|attach|send|stop|status|shutdown`; the work is loaded only when a command runs. */
export function registerSessionCommands(program: Command, io: RunIo, setExit: SetExit): void {
  const actions = () => import("./actions.js");

  program
    .command("agents")
    .description(
      "list sessions, live or saved: id, status, title, cwd, started, last activity, spend (the live ones and the 20 newest; --all for every one)",
    )
    .option("-a, --all", "every session, however many")
    .option("--json", "one JSON object per session (every one)")
    .action(async (flags: { json?: boolean; all?: boolean }) =>
      setExit(await (await actions()).agentsAction(io, flags)),
    );

  program
    .command("logs")
    .description("print a session's events; --follow keeps printing while it runs")
    .argument("<id>", "session id or a unique prefix")
    .option("-f, --follow", "keep following the live session until it stops")
    .option("--json", "one JSON event per line")
    .action(async (id: string, flags: { follow?: boolean; json?: boolean }) =>
      setExit(await (await actions()).logsAction(io, id, flags)),
    );

  program
    .command("attach")
    .description("show a session's whole history, then follow it live; lines you type are sent to it")
    .argument("<id>", "session id or a unique prefix")
    .option("--json", "one JSON event per line")
    .action(async (id: string, flags: { json?: boolean }) => {
      // In a terminal the full-screen UI attaches; the plain view serves pipes, TERM=dumb and --json.
      if (attachUsesUi(flags, terminalOf(io))) {
        setExit(await openTui({ sessionId: id }, {}, io));
        return;
      }
      setExit(await (await actions()).attachAction(io, id, flags));
    });

  program
    .command("send")
    .description("send a message to a session: a new turn if it is idle, else read at its next turn boundary")
    .argument("<id>", "session id or a unique prefix")
    .argument("<text...>", "the message")
    .action(async (id: string, words: string[]) =>
      setExit(await (await actions()).sendAction(io, id, words)),
    );

  program
    .command("stop")
    .description("stop a running session gracefully: its cell is interrupted and its state saved")
    .argument("<id>", "session id or a unique prefix")
    .action(async (id: string) => setExit(await (await actions()).stopAction(io, id)));

  program
    .command("status")
    .description("the sessions that are live right now")
    .action(async () => setExit(await (await actions()).statusAction(io)));

  program
    .command("shutdown")
    .description("stop every live session gracefully and pause the schedules (relm schedule resume)")
    .action(async () => setExit(await (await import("./shutdown.js")).shutdownAction(io)));
}
