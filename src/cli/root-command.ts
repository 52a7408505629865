// `relm [--continue | --resume [ID]] ["task"]`: the command with no command name. Picks the front end
// (front-end.ts) and starts it; a single mistyped command name is refused before anything starts.

import { relmHomeFrom } from "../config/config.js";
import { UserError } from "../config/errors.js";
import type { SessionSpec } from "../config/options.js";
import { isLive } from "../host/client.js";
import { listSessions } from "../host/states/discovery.js";
import { resolveSessionId, sessionsDir } from "../session/index.js";
import { chooseRootFrontEnd, type LineStart, openTui, terminalOf } from "./front-end.js";
import type { RunIo } from "./run.js";
import { refuseTypo } from "./suggest.js";

/** The root's own options on top of the session options `relm run` also takes. */
interface RootFlags extends Omit<SessionSpec, "resume"> {
  continue?: boolean;
  /** `--resume` alone is true: pick a session. */
  resume?: string | boolean;
}

export async function rootAction(
  words: string[],
  flags: RootFlags,
  io: RunIo,
  commandNames: readonly string[],
): Promise<number> {
  refuseTypo(words, commandNames);
  const { continue: continueLast, resume, ...runFlags } = flags;
  const choice = chooseRootFrontEnd(
    { words, continueLast, resume: resume === true ? true : resume || undefined },
    terminalOf(io),
  );
  switch (choice.kind) {
    case "tui":
      return openTui(choice.start, runFlags, io);
    case "run": {
      const { runOnce } = await import("./run.js");
      return runOnce(choice.task, runFlags, io);
    }
    case "line": {
      const resumeId = await lineResumeId(relmHomeFrom(io.env), choice.start, io.cwd);
      const { interactive } = await import("./interactive.js");
      return interactive(runFlags, io, { task: choice.start.task, resumeId });
    }
  }
}

/** The session line mode continues: the one named, or this directory's last; it must not be running. */
async function lineResumeId(home: string, start: LineStart, cwd: string): Promise<string | undefined> {
  let id: string | undefined;
  if (start.resumeId) id = resolveSessionId(sessionsDir(home), start.resumeId);
  else if (start.continueLast) id = await lastSessionIn(home, cwd);
  // Exit 1, as `relm run --resume` of a running session: the command line was right, the session is busy.
  if (id && (await isLive(home, id))) {
    throw new UserError(`session ${id} is running in another process; relm attach ${id} joins it`);
  }
  return id;
}

/** The session of `cwd` with the most recent activity, if any. */
async function lastSessionIn(home: string, cwd: string): Promise<string | undefined> {
  const here = (await listSessions(home)).filter((s) => s.cwd === cwd);
  here.sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  return here[0]?.id;
}
