// Stopping a session that a stub holds (src/host/stub.ts) needs no host. Connecting to its socket would
// make the stub start the full host (a Node start and a resume) only to stop it at once, and `relm
// shutdown` with many idle sessions would start them all together. Instead the stub is told to leave
// as it does at its idle deadline (the socket is removed, the lock let go), and the session is recorded
// as done, as a host that is stopped while idle records it.
import { readFileSync } from "node:fs";
import { isLive } from "./client.js";
import { waitFor } from "./poll.js";
import { readState, writeState } from "./states/state.js";

/** The stub leaves at once on SIGTERM; this is only a bound for a machine under load. */
const STUB_EXIT_MS = 5_000;

/**
 * Stops session `id` if a stub holds it: true when it did. False when no stub holds the session (or a
 * client reached the stub first and it has started the host): the caller stops the host as usual.
 */
export async function stopHeldByStub(home: string, id: string): Promise<boolean> {
  const state = readState(home, id);
  if (state?.status !== "idle" || !isStub(state.pid)) return false;
  try {
    process.kill(state.pid, "SIGTERM");
  } catch {
    return false; // gone meanwhile: whatever holds the session now is asked through the socket
  }
  if (!(await waitFor(() => !isStub(state.pid), STUB_EXIT_MS, 20))) return false;
  // A connection that came just before the signal made the stub start the host instead of leaving; the
  // host then holds the lock the stub handed it, and is stopped through the socket.
  if (await isLive(home, id)) return false;
  const now = readState(home, id);
  if (now?.pid === state.pid && now.status === "idle") {
    writeState(home, { ...now, status: "done" });
  }
  return true;
}

/** Whether `pid` is a running stub (a zombie's command line is empty; a reused pid runs something else). */
export function isStub(pid: number): boolean {
  if (process.platform !== "linux" || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .some((arg) => arg.endsWith("host/stub.js"));
  } catch {
    return false;
  }
}
