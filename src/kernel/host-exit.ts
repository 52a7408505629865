import { unlinkSync } from "node:fs";

// Process groups (kernels, templates) and socket files this host owns. On exit Node runs only
// synchronous code, so they are killed and removed right there: no Python process, nor anything a
// cell started, outlives the host, and no stale socket is left behind. A kernel's keeper
// (python/relm/keeper.py) gets SIGTERM instead: it then ends whatever the kernel detached.
const liveGroups = new Map<number, NodeJS.Signals>();
const liveFiles = new Set<string>();
let hookInstalled = false;

function installHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  process.on("exit", () => {
    for (const [group, signal] of liveGroups) killGroup(group, signal);
    for (const file of liveFiles) {
      try {
        unlinkSync(file);
      } catch {
        // already gone
      }
    }
  });
}

/** Kills process group `pgid` (with `signal`, SIGKILL by default) when the host exits, unless untracked first. */
export function trackGroup(pgid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  installHook();
  liveGroups.set(pgid, signal);
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Removes `file` when the host exits, unless untracked first. */
export function trackFile(file: string): void {
  installHook();
  liveFiles.add(file);
}

export function untrackFile(file: string): void {
  liveFiles.delete(file);
}

/** Signals a whole process group; false if it no longer exists. */
export function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
