// Pids across the sandbox's pid namespace. A sandboxed runner or template reports its pids as it sees
// them (2, 7, ...); the host signals process groups by its own pids. The host finds the process by
// walking down from the one it spawned (bwrap) and reading each descendant's NSpid line, whose last
// field is the pid inside the innermost namespace. Never guessed: a pid not found is undefined, so a
// signal meant for the sandbox can never reach an unrelated host process that has the inner number.
import { readdirSync, readFileSync } from "node:fs";

const MAX_PROCESSES = 4096;

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      for (const word of readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ")) {
        const n = Number(word);
        if (Number.isSafeInteger(n) && n > 0) out.push(n);
      }
    } catch {
      // the task ended meanwhile
    }
  }
  // The kernel lists children oldest first; the process looked for has usually just been forked.
  return out.reverse();
}

/** The last NSpid field of `pid` (its pid in its own namespace), or undefined. */
function innerPidOf(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const line = /^NSpid:\s*(.*)$/m.exec(status)?.[1];
    if (!line) return undefined;
    const fields = line.trim().split(/\s+/);
    return Number(fields[fields.length - 1]);
  } catch {
    return undefined;
  }
}

/** The host pid of the descendant of `outer` whose pid inside its namespace is `inner`. */
export function hostPidBelow(outer: number, inner: number): number | undefined {
  const queue = childrenOf(outer);
  let seen = 0;
  while (queue.length > 0 && seen < MAX_PROCESSES) {
    const pid = queue.shift()!;
    seen++;
    if (innerPidOf(pid) === inner) return pid;
    queue.push(...childrenOf(pid));
  }
  return undefined;
}
