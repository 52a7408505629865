// The stub that holds an idle session's place (src/host/handoff.ts says why): run as
// `node dist/host/stub.js PLAN` with the session's listening socket on fd 3, its lock on fd 4 and
// connections already waiting on fd 5 on, and the session's keys on the pipe RELM_KEYS_FD names. It
// imports Node's built-ins, src/host/fd-of.ts, src/config/long-timeout.ts and src/host/handoff.ts (which
// imports only src/host/key-pipe.ts, built-ins only), so it costs what bare Node does. It never reads a connection: the host it starts reads each from its first byte.
import { existsSync, unlinkSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { longTimeout } from "../config/long-timeout.js";
import { fdOf } from "./fd-of.js";
import { FIRST_CLIENT_FD, LISTEN_FD, LOCK_FD, type StubPlan } from "./handoff.js";
import { receiveKeys, spawnDetached } from "./key-pipe.js";

const plan = JSON.parse(process.argv[2] ?? "{}") as StubPlan;
// Held for the host it starts, never put in this process's environment.
const keys = receiveKeys();
const held: Socket[] = [];
let leaving = false;

// Paused on accept: nothing is read here, so the next host gets every byte the client sent.
const listener = createServer({ pauseOnConnect: true }, (socket) => {
  held.push(socket);
  revive();
});
listener.on("error", () => leave(1));
listener.listen({ fd: LISTEN_FD });
const lock = plan.lock ? createServer((s) => s.destroy()).listen({ fd: LOCK_FD }) : undefined;

/** Starts the host with the socket, the lock and every waiting connection, then exits. */
function revive(): void {
  if (leaving) return;
  leaving = true;
  const waiting = Array.from({ length: plan.clients }, (_, i) => FIRST_CLIENT_FD + i);
  for (const s of held) {
    const fd = fdOf(s);
    if (fd !== undefined) waiting.push(fd);
  }
  const layout = JSON.stringify({ lock: plan.lock, clients: waiting.length });
  try {
    const fds = [LISTEN_FD, plan.lock ? LOCK_FD : ("ignore" as const), ...waiting];
    spawnDetached([...plan.revive, "--adopt", layout], plan.logPath, {
      cwd: plan.cwd,
      env: process.env,
      keys,
      fds,
    });
  } catch (error) {
    process.stderr.write(`relm stub: could not start the session host again: ${String(error)}\n`);
    leave(1);
    return;
  }
  // The host holds its own copies now. Opened from a descriptor, the listener is closed here without
  // removing the socket file, and closing a connection's copy does not end it.
  process.exit(0);
}

/** The idle deadline (or a fault): the session's socket goes, as when an idle host exits. */
function leave(code: number): void {
  leaving = true;
  listener.close();
  lock?.close();
  try {
    if (existsSync(plan.socketPath)) unlinkSync(plan.socketPath);
  } catch {
    // Gone already.
  }
  process.exit(code);
}

if (plan.clients > 0) revive();
else {
  // An idle deadline may be further off than setTimeout can wait (--idle-timeout in seconds).
  const wait = (at: number, then: () => void) => longTimeout(then, Math.max(0, at - Date.now()));
  if (plan.wakeAt !== undefined && plan.wakeAt < plan.idleExitAt) wait(plan.wakeAt, revive);
  else wait(plan.idleExitAt, () => leave(0));
  process.on("SIGTERM", () => leave(0));
  process.on("SIGINT", () => leave(0));
  process.on("SIGHUP", () => {});
}
