import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  unlinkSync,
} from "node:fs";
import { join } from "node:path";
import { Journal, sessionsDir } from "../session/index.js";
import { isLive } from "./client.js";
import { allJobs } from "./schedules.js";
import { claimsLiveHost, readState, writeState } from "./state.js";
import { wakerRunning } from "./waker.js";

/** Something wrong with relm's own state, and how to set it right. */
export interface Finding {
  problem: string;
  fix: string;
  apply(): Promise<void> | void;
}

/** Sockets in run/ that nobody listens on: their host died without removing them. */
async function staleSockets(home: string): Promise<Finding[]> {
  const run = join(home, "run");
  if (!existsSync(run)) return [];
  const found: Finding[] = [];
  for (const name of readdirSync(run).filter((n) => n.endsWith(".sock"))) {
    const id = name.slice(0, -".sock".length);
    if (await isLive(home, id)) continue;
    const path = join(run, name);
    found.push({ problem: `stale socket ${path}`, fix: "remove it", apply: () => unlinkSync(path) });
  }
  return found;
}

function readProc(pid: string, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * relm Python processes of this RELM_HOME that nothing owns any more: reparented to init (their host
 * died) or belonging to a session that has no live host. Linux only (/proc).
 */
async function orphanKernels(home: string): Promise<Finding[]> {
  if (!existsSync("/proc")) return [];
  const marker = `\0RELM_HOME=${home}\0`;
  const found: Finding[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    const cmdline = readProc(pid, "cmdline") ?? "";
    if (!cmdline.includes("relm.runner") && !cmdline.includes("relm.template")) continue;
    if (!`\0${readProc(pid, "environ") ?? ""}`.includes(marker)) continue;
    const stat = readProc(pid, "stat") ?? "";
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid !== 1) continue;
    found.push({
      problem: `orphan kernel process ${pid} (its host is gone)`,
      fix: "kill it and its process group",
      apply: () => {
        try {
          process.kill(-Number(pid), "SIGKILL");
        } catch {
          process.kill(Number(pid), "SIGKILL");
        }
      },
    });
  }
  return found;
}

function lastLineTorn(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const buffer = Buffer.alloc(Math.min(size, 1 << 16));
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    const text = buffer.toString("utf8");
    if (!text.endsWith("\n")) return true;
    const last = text.slice(0, -1).split("\n").pop() ?? "";
    try {
      JSON.parse(last);
      return false;
    } catch {
      return true;
    }
  } finally {
    closeSync(fd);
  }
}

/** Journals (of sessions without a live host) whose last line was cut by a crash, and stale states. */
async function sessionsState(home: string): Promise<Finding[]> {
  const root = sessionsDir(home);
  if (!existsSync(root)) return [];
  const found: Finding[] = [];
  for (const id of readdirSync(root)) {
    const dir = join(root, id);
    if (!existsSync(join(dir, "journal.jsonl")) || (await isLive(home, id))) continue;
    if (lastLineTorn(join(dir, "journal.jsonl"))) {
      found.push({
        problem: `session ${id}: the journal's last line is half-written (a crash mid-write)`,
        fix: "cut the torn line off (everything before it is intact)",
        apply: () => Journal.open(dir).close(),
      });
    }
    const state = readState(home, id);
    if (state && claimsLiveHost(state.status)) {
      found.push({
        problem: `session ${id}: its state says ${state.status}, but no host is running it`,
        fix: `mark it interrupted (resume it with relm run --resume ${id})`,
        apply: () =>
          writeState(home, { ...state, status: "interrupted", reason: "its host process stopped" }),
      });
    }
  }
  return found;
}

/** Scheduled jobs with ticks to come but no waker to revive their sessions. */
async function missingWaker(home: string, startWaker: () => Promise<void>): Promise<Finding[]> {
  const pending = allJobs(home).filter((j) => !j.cancelled && j.next);
  if (pending.length === 0 || (await wakerRunning(home))) return [];
  return [
    {
      problem: `${pending.length} scheduled job(s) but no waker running`,
      fix: "start the waker",
      apply: startWaker,
    },
  ];
}

export async function findProblems(home: string, startWaker: () => Promise<void>): Promise<Finding[]> {
  const groups = await Promise.all([
    staleSockets(home),
    orphanKernels(home),
    sessionsState(home),
    missingWaker(home, startWaker),
  ]);
  return groups.flat();
}
