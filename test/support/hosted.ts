// A session hosted in this process, as `relm run --as-host` wires it, with a client on its socket: the way
// the terminal UI drives a session, for in-process host tests.
import { readFileSync } from "node:fs";
import type { AgentEvent } from "../../src/agent/core/events.js";
import { prepareSession, resumeSession } from "../../src/cli/setup.js";
import { SessionClient } from "../../src/host/client.js";
import type { SessionHost } from "../../src/host/host.js";
import { hostSession } from "../../src/host/host-session.js";
import type { SessionInfo } from "../../src/host/info.js";
import type { RpcError } from "../../src/host/rpc.js";
import type { JournalLine } from "./journal.js";
import type { Rig } from "./scripted.js";
import { until } from "./wait.js";

export interface Hosted {
  host: SessionHost;
  client: SessionClient;
  events: AgentEvent[];
  id: string;
  dir: string;
  info(): Promise<SessionInfo>;
  /** Sends a message and waits until the turn it starts has ended. */
  turn(text: string, variables?: { name: string; text: string }[]): Promise<SessionInfo>;
  close(): Promise<void>;
}

/** A session hosted in this process, as `relm run --as-host` wires it, and a client on its socket. */
export async function hosted(
  rig: Rig,
  options: { resume?: string; detached?: boolean; idleExitMs?: number; kernelIdleMs?: number } = {},
): Promise<Hosted> {
  const events: AgentEvent[] = [];
  const io = { env: rig.env, cwd: rig.cwd };
  const { host: h, opened } = await hostSession(
    (sink) =>
      options.resume
        ? resumeSession(options.resume, {}, io, sink)
        : prepareSession("host commands", {}, io, sink),
    () => ({
      home: rig.home,
      cwd: rig.cwd,
      detached: options.detached ?? false,
      idleExitMs: options.idleExitMs,
      kernelIdleMs: options.kernelIdleMs,
      interactive: true,
    }),
    [(event) => events.push(event)],
  );
  const { session } = opened;
  const client = (await SessionClient.connect(rig.home, session.id)) as SessionClient;
  const info = () => client.call("info");
  const idle = () => until(async () => ((await info()).busy ? undefined : info()), 30_000);
  return {
    host: h,
    client,
    events,
    id: session.id,
    dir: session.dir,
    info,
    turn: async (text, variables) => {
      await client.call("send", { text, variables });
      return idle();
    },
    close: async () => {
      client.close();
      if (options.detached) await h.stop();
      else await h.finish();
    },
  };
}

export function journal(path: string): JournalLine[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalLine);
}

/** The error a host call failed with (the test fails if it succeeded). */
export async function rpcError(call: Promise<unknown>): Promise<RpcError> {
  try {
    await call;
  } catch (error) {
    return error as RpcError;
  }
  throw new Error("expected the call to fail");
}
