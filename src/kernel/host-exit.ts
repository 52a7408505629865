import { unlinkSync } from "node:fs";

// Process groups (kernels, templates) and socket files this host owns. On exit Node runs only
// synchronous code, so they are killed and removed right there: no Python process, nor anything a
// cell started, outlives the host, and no stale socket is left behind.
const liveGroups = new Set<number>();
const liveFiles = new Set<string>();
let hookInstalled = false;

function installHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  process.on("exit", () => {
    for (const group of liveGroups) killGroup(group, "SIGKILL");
    for (const file of liveFiles) {
      try {
        unlinkSync(file);
      } catch {
        // already gone
      }
    }
  });
}

/** Kills process group `pgid` when the host exits, unless untracked first. */
export function trackGroup(pgid: number): void {
  installHook();
  liveGroups.add(pgid);
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
