// Keeping the shadow repository small, in the background: loose objects (one file, 4 KB or more on disk,
// per stored file version: 432 MB for 24.5 MB of data at 100 000 files) are packed, and objects borrowed
// from the user's repository (seed.ts) are copied into the shadow's own pack. Runs niced, never under the
// checkpoint lock (git keeps packing safe beside readers and writers), one at a time per repository.

import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { setPriority } from "node:os";
import { join } from "node:path";
import { tryPidLock } from "../config/pid-lock.js";
import type { GitContext } from "./git.js";
import { alternatesFile } from "./seed.js";

/** Loose objects that make a pack worth writing. */
const LOOSE_LIMIT = 512;
/** Packs that make one whole repack worth it. */
const PACK_LIMIT = 16;
/** How often borrowed objects are copied in (a full repack). */
const OWN_EVERY_MS = 6 * 3600_000;
const OWNED_MARK = "relm-owned";

const running = new Set<string>();

export interface MaintenanceResult {
  /** What ran: nothing, an incremental pack of loose objects, or a full repack. */
  ran: "none" | "pack" | "repack";
}

/**
 * Packs the repository when it needs it; resolves when done (callers need not wait). A maintenance
 * already running for this repository, here or in another process, makes this one do nothing.
 */
export async function maintain(ctx: GitContext): Promise<MaintenanceResult> {
  if (running.has(ctx.gitDir)) return { ran: "none" };
  running.add(ctx.gitDir);
  const lock = join(ctx.gitDir, "relm-maintenance.lock");
  try {
    const held = tryPidLock(lock);
    if (!held) return { ran: "none" };
    try {
      const mode = await needed(ctx.gitDir);
      if (mode === "none") return { ran: "none" };
      // -d also removes the loose copies and packs made redundant; no -l, so borrowed objects come in.
      const args = ["repack", "-d", "-q", "--window=0", ...(mode === "repack" ? ["-a"] : [])];
      await run(ctx, args);
      if (mode === "repack") {
        // Loose objects nothing refers to (a fingerprint's trees, files later ignored), once old enough
        // that no snapshot still writing can need them.
        await run(ctx, ["prune", "--expire=1.day.ago"]);
        closeSync(openSync(join(ctx.gitDir, OWNED_MARK), "w"));
      }
      return { ran: mode };
    } finally {
      held.release();
    }
  } catch {
    return { ran: "none" }; // maintenance is an optimisation: the next one tries again
  } finally {
    running.delete(ctx.gitDir);
  }
}

async function needed(gitDir: string): Promise<"none" | "pack" | "repack"> {
  const objects = join(gitDir, "objects");
  let packs = 0;
  try {
    packs = (await readdir(join(objects, "pack"))).filter((f) => f.endsWith(".pack")).length;
  } catch {
    // no pack yet
  }
  if (packs > PACK_LIMIT) return "repack";
  if (borrows(gitDir) && ageMs(join(gitDir, OWNED_MARK)) > OWN_EVERY_MS) return "repack";
  let loose = 0;
  for (const dir of await readdir(objects)) {
    if (!/^[0-9a-f]{2}$/.test(dir)) continue;
    loose += (await readdir(join(objects, dir))).length;
    if (loose >= LOOSE_LIMIT) return packs === 0 ? "repack" : "pack";
  }
  return "none";
}

function borrows(gitDir: string): boolean {
  try {
    return readFileSync(alternatesFile(gitDir), "utf8").trim().length > 0;
  } catch {
    return false;
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function run(ctx: GitContext, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ctx.git, args, { cwd: ctx.workTree, env: ctx.env, stdio: "ignore" });
    child.on("spawn", () => {
      try {
        if (child.pid) setPriority(child.pid, 19); // background work: the session's own work comes first
      } catch {
        // not allowed here: it runs at normal priority
      }
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`git ${args[0]} exited ${code}`)),
    );
  });
}
