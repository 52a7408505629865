import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../config/errors.js";
import type { SessionSpec } from "../config/options.js";
import { writeSpecFile } from "../config/session-spec.js";
import { ensurePrivateDir, readJournalHeader, sessionDir } from "../session/index.js";
import type { JournalHeader } from "../session/types.js";
import { SessionClient } from "./client.js";
import { HOST_NODE_FLAGS, MAIN } from "./handoff.js";
import { spawnDetached } from "./key-pipe.js";
import { hostLogPath } from "./paths.js";
import { poll } from "./poll.js";
import { splitKeys } from "./private-keys.js";
import { SessionBusyError } from "./server.js";

const READY_TIMEOUT_MS = 20_000;

/** What a new host process runs. */
export interface HostLaunch {
  /** Continue the session from its journal (with the options it remembers, `spec` replacing them). */
  resume?: boolean;
  /** Its options (config/options.ts), handed over in a 0600 file in the session's directory. */
  spec?: SessionSpec;
  /** Its first turn. */
  task?: string;
}

let specFiles = 0;

/** `relm run`'s words for `launch`, its spec written to a file of its own (the host removes it). */
function hostArgs(home: string, id: string, launch: HostLaunch): { args: string[]; specFile?: string } {
  const args = ["run", "--as-host", id];
  if (launch.resume) args.push("--resume", id);
  let specFile: string | undefined;
  if (launch.spec && Object.keys(launch.spec).length > 0) {
    specFile = join(sessionDir(home, id), `spec-${process.pid}-${++specFiles}.json`);
    writeSpecFile(specFile, launch.spec);
    args.push("--spec", specFile);
  }
  if (launch.task !== undefined) args.push("--", launch.task);
  return { args, specFile };
}

/**
 * Starts a detached host process and waits until its socket answers (or it fails, with its log). The
 * secrets in `env` reach it on a pipe, not in its environment (private-keys.ts).
 */
export async function spawnHost(
  home: string,
  id: string,
  launch: HostLaunch,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<void> {
  checkFolder(id, cwd);
  ensurePrivateDir(sessionDir(home, id));
  const { args, specFile } = hostArgs(home, id, launch);
  try {
    const logPath = hostLogPath(home, id);
    const keyed = splitKeys({ ...env, NO_COLOR: "1" }); // the secrets on a pipe (private-keys.ts)
    const child = spawnDetached([...HOST_NODE_FLAGS, MAIN, ...args], logPath, { cwd, ...keyed });
    let exited: number | null | undefined;
    child.on("exit", (code) => {
      exited = code;
    });
    // A process that could not be started is an 'error' event, which would end this process unheard.
    let spawnError: string | undefined;
    child.on("error", (error) => {
      spawnError = error.message;
      exited = null;
    });
    // Ready means this host answers, not just that the socket is bound: a host that fails while it
    // starts (no Python, a journal it cannot resume) is reported here, with its log. Another process's
    // host answering is not this one being ready: started at the same moment as this one, it took the
    // session, and this one exits (its task was never run).
    let other = false;
    const ready = await poll(
      async () => {
        const pid = await answeringPid(home, id);
        if (pid !== undefined && pid === child.pid) return true;
        if (exited === undefined) return undefined;
        other = pid !== undefined;
        return false;
      },
      READY_TIMEOUT_MS,
      20,
    );
    if (ready) return;
    if (other) throw new SessionBusyError(id);
    if (spawnError) throw new HostLaunchError(`the session host could not be started (${spawnError})`);
    const tail = readFileSync(logPath, "utf8").trim().split("\n").slice(-8).join("\n");
    throw new HostLaunchError(
      exited !== undefined
        ? `the session host exited (code ${exited}) before it was ready:\n${tail}`
        : `the session host did not come up within ${READY_TIMEOUT_MS / 1000} s; see ${logPath}`,
    );
  } finally {
    // Read and removed by the host as it starts; left only by one that never got that far.
    if (specFile) rmSync(specFile, { force: true });
  }
}

/**
 * A host runs in its session's folder. One that was moved or deleted would fail the spawn itself
 * (ENOENT, reported by Node as if node were missing): said here, with what to do.
 */
function checkFolder(id: string, cwd: string): void {
  let isFolder = false;
  try {
    isFolder = statSync(cwd).isDirectory();
  } catch {
    // Gone, or not reachable: both mean the host cannot start there.
  }
  if (!isFolder)
    throw new CannotReviveError(
      `session ${id} cannot be continued in its folder ${cwd}: it no longer exists (moved or deleted); recreate it, or continue the session in another folder with relm run --resume ${id}`,
      "its folder no longer exists",
    );
}

/** The pid of the host that answers for the session now (0 when it does not say); undefined if none. */
async function answeringPid(home: string, id: string): Promise<number | undefined> {
  const client = await SessionClient.connect(home, id, 1000);
  if (!client) return undefined;
  try {
    // An older host may answer without a state yet (null) or without a pid.
    const status: { pid?: unknown } | null = await client.call("status", {});
    return typeof status?.pid === "number" ? status.pid : 0;
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

class HostLaunchError extends UserError {
  override name = "HostLaunchError";
}

/**
 * Nothing a retry can mend: the session's folder or its journal is gone, so no host can start until it is
 * back. The waker gives such a session up at once (its jobs paused, saying this message).
 */
export class CannotReviveError extends HostLaunchError {
  override name = "CannotReviveError";
  constructor(
    message: string,
    /** The short why, for the pause reason `relm schedule list` shows ("its folder no longer exists"). */
    readonly reason: string,
  ) {
    super(message);
  }
}

/**
 * Brings an exited session back: a detached host resumes it from its journal and, given a message,
 * runs it as the next turn; without one it waits for work (a due schedule, an attach).
 */
export async function reviveHost(
  home: string,
  id: string,
  env: NodeJS.ProcessEnv,
  message?: string,
  spec: SessionSpec = {},
): Promise<void> {
  const header = headerToRevive(home, id);
  try {
    await spawnHost(home, id, { resume: true, spec, task: message }, env, header.cwd);
  } catch (error) {
    // Another process revived it at the same moment (two sends, a send and a tick): it is live, which
    // is what was asked; the message, which this host would have run, goes to that one instead.
    if (!(error instanceof SessionBusyError)) throw error;
    if (message !== undefined) await sendTo(home, id, message);
  }
}

/** The journal's header (the folder the host starts in); a journal that is gone cannot be revived. */
function headerToRevive(home: string, id: string): JournalHeader {
  const path = `${sessionDir(home, id)}/journal.jsonl`;
  if (!existsSync(path))
    throw new CannotReviveError(
      `session ${id} cannot be revived: its journal ${path} no longer exists (deleted); nothing of it is left to continue`,
      "its journal no longer exists",
    );
  return readJournalHeader(path);
}

async function sendTo(home: string, id: string, text: string): Promise<void> {
  const client = await SessionClient.connect(home, id);
  if (!client) throw new HostLaunchError(`session ${id} stopped while relm was handing it your message`);
  try {
    await client.call("send", { text });
  } finally {
    client.close();
  }
}

/**
 * Starts the per-user waker (src/host/schedules/waker.ts) unless one runs; it exits by itself when no job is left.
 * It revives hosts, so it holds the keys too: on a pipe, as a host does.
 */
export async function ensureWaker(home: string, env: NodeJS.ProcessEnv): Promise<void> {
  const { wakerRunning } = await import("./schedules/waker.js");
  if (await wakerRunning(home)) return;
  ensurePrivateDir(home);
  spawnDetached([MAIN, "__waker"], `${home}/waker.log`, splitKeys(env));
}
