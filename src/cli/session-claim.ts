// A session has one writer at a time. Whoever continues a saved session takes it first, before its
// journal is opened for writing or its kernel started: the lock is the session's host socket (with, on
// Linux, the abstract socket bound beside it: src/host/server.ts), bound atomically. A second process
// gets SessionBusyError at once, having written and started nothing, so it can exit instead of hanging
// on a kernel it should never have started.
import type { EventSink } from "../agent/core/events.js";
import type { SessionSpec } from "../config/options.js";
import type { SessionServer } from "../host/server.js";
import { type Claim, claimSession } from "./claim.js";
import { type CliIo, type PreparedSession, resumeSession, type SessionOverrides } from "./setup.js";

/** A resumed session and the bound socket that makes this process its only writer (serve it, or close it). */
type ClaimedSession<F> = PreparedSession & { flags: F; server: SessionServer };

/**
 * `relm run --resume ID` and line mode's `--resume`: takes the session's lock (unless `id` is a session
 * taken already), then resumes it. Throws SessionBusyError (exit 1, naming relm attach and relm stop)
 * when another process has it.
 */
export async function resumeClaimed<F extends SessionSpec>(
  id: string | Claim,
  flags: F,
  io: CliIo,
  sink: EventSink,
  overrides: SessionOverrides = {},
): Promise<ClaimedSession<F>> {
  const { id: full, server } =
    typeof id === "string" ? await claimSession(id, io.env, overrides.config?.home) : id;
  try {
    return { ...(await resumeSession(full, flags, io, sink, overrides)), server };
  } catch (error) {
    // Nothing serves it yet: connections held meanwhile are dropped, and the lock is free again.
    await server.close("the session could not be resumed");
    throw error;
  }
}
