// A process's start-up environment stays readable in /proc/PID/environ by every process of the same
// user for as long as it runs, whatever it later does to process.env: the kernel shows the bytes the
// environment was exec'd with, which sit at the top of the process's stack. A cell that runs as the user
// (no --sandbox) could read the API key from the relm process that started its session. Node has no
// prctl(PR_SET_DUMPABLE), and re-executing itself without the keys costs a Node start, so on Linux the
// process overwrites those bytes in place through /proc/self/mem (which a process may always write for
// itself): ~1 ms, no native code. process.env keeps every value: each is set again first, which makes
// libc copy it to the heap and point `environ` there, so nothing reads the overwritten bytes afterwards.
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { statFields } from "./process.js";

/** What an overwritten value reads as in /proc/PID/environ (`OPENAI_API_KEY=****`). */
const MASK = 0x2a; // "*"

/** /proc/PID/stat's env_start and env_end (fields 50 and 51, proc(5)): where the block lies in memory. */
function environBounds(): { start: number; end: number } | undefined {
  const fields = statFields("self") ?? [];
  const start = Number(fields[50 - 3]);
  const end = Number(fields[51 - 3]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0 || end <= start)
    return undefined;
  return { start, end };
}

/**
 * Overwrites, in this process's start-up environment block, the value of every variable `hide` picks,
 * after moving process.env's copy of it out of the block; the names hidden. Does nothing, and names
 * none, where there is no /proc (not Linux) or the block cannot be written (a kernel that forbids it):
 * the process works the same either way, only less private.
 */
export function hideInEnvironBlock(hide: (name: string, value: string) => boolean): string[] {
  if (process.platform !== "linux") return [];
  let fd: number | undefined;
  try {
    const bounds = environBounds();
    if (!bounds) return [];
    const block = Buffer.alloc(bounds.end - bounds.start);
    fd = openSync("/proc/self/mem", "r+");
    const read = readSync(fd, block, 0, block.length, bounds.start);
    const hidden: string[] = [];
    for (let at = 0; at < read; ) {
      const stop = block.indexOf(0, at);
      const end = stop === -1 || stop > read ? read : stop;
      const equals = block.indexOf(0x3d, at); // "="
      if (equals > at && equals < end) {
        const name = block.toString("utf8", at, equals);
        const value = block.toString("utf8", equals + 1, end);
        if (end > equals + 1 && hide(name, value)) {
          // Set again before overwriting: libc copies it to the heap, and getenv() reads that copy.
          const current = process.env[name];
          if (current !== undefined) process.env[name] = current;
          const mask = Buffer.alloc(end - equals - 1, MASK);
          writeSync(fd, mask, 0, mask.length, bounds.start + equals + 1);
          hidden.push(name);
        }
      }
      at = end + 1;
    }
    return hidden;
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
