import { existsSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { sessionsDir } from "../../session/index.js";
import { isLive } from "../client.js";
import { chainOf, markerOf, parentOf } from "../peer.js";
import { activeJobs, allJobs } from "../schedules/schedules.js";
import { wakerRunning } from "../schedules/waker.js";
import { claimsLiveHost, readState, writeState } from "../states/state.js";
import type { Finding } from "./finding.js";
import { journalFindings } from "./journals.js";

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
    if (parentOf(Number(pid)) !== 1) continue;
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

/**
 * Processes a kernel left behind: their start-up environment names a session of this RELM_HOME
 * (`RELM_KERNEL`, which every kernel starts with and passes on to what its cells start) that has no
 * live host any more. A kernel's keeper (python/relm/keeper.py) ends everything below it when the kernel
 * ends; this finds what survived anyway (the keeper itself was killed with SIGKILL, or relm ran
 * somewhere without keepers). Kernel processes themselves are orphanKernels' business. A process a
 * cell started with an emptied environment cannot be told apart from the user's own, and is not
 * found. Linux only (/proc).
 */
async function survivors(home: string): Promise<Finding[]> {
  if (!existsSync("/proc")) return [];
  const root = sessionsDir(home);
  const mine = new Set(chainOf(process.pid).map((link) => link.pid)); // never ourselves, nor what we run under
  const live = new Map<string, Promise<boolean>>();
  const found: Finding[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    const session = markerOf(Number(pid));
    if (!session || !/^[0-9A-Za-z]{1,64}$/.test(session) || mine.has(Number(pid))) continue;
    if (!existsSync(join(root, session))) continue;
    const cmdline = (readProc(pid, "cmdline") ?? "").split("\0").filter(Boolean);
    if (cmdline.length === 0 || cmdline.some((a) => a === "relm.runner" || a === "relm.template")) continue;
    if (!live.has(session)) live.set(session, isLive(home, session));
    if (await live.get(session)) continue;
    const command = cmdline.join(" ");
    found.push({
      problem: `process ${pid} (${command.length > 60 ? `${command.slice(0, 59)}…` : command}) outlived session ${session}`,
      fix: "kill it",
      apply: () => {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // ended meanwhile
        }
      },
    });
  }
  return found;
}

/** Journals (of sessions without a live host) torn by a crash or damaged in the middle, and stale states. */
async function sessionsState(home: string): Promise<Finding[]> {
  const root = sessionsDir(home);
  if (!existsSync(root)) return [];
  const found: Finding[] = [];
  for (const id of readdirSync(root)) {
    const dir = join(root, id);
    if (!existsSync(join(dir, "journal.jsonl")) || (await isLive(home, id))) continue;
    found.push(...journalFindings(home, id, dir));
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
  const pending = activeJobs(allJobs(home)); // paused ones need no waker
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
    survivors(home),
    sessionsState(home),
    missingWaker(home, startWaker),
  ]);
  return groups.flat();
}
