// What a session page can do to its session, each as `relm send`, `relm stop` and the UI's Escape do it:
// a connection to the host for the one call, closed after. A message to a session no host serves brings
// it back with the message, as `relm send` does.

import { RpcError } from "../host/rpc.js";
import { SessionHandle } from "../host/session-handle.js";
import { stopHeldByStub } from "../host/stub-stop.js";

/** The page asked for something the session cannot do now: said to the person, not a server error. */
export class ActionError extends Error {
  override name = "ActionError";
}

const MAX_TEXT_CHARS = 16_000;

export async function sendMessage(
  home: string,
  id: string,
  env: NodeJS.ProcessEnv,
  text: string,
): Promise<string> {
  if (text.trim() === "") throw new ActionError("the message is empty");
  if (text.length > MAX_TEXT_CHARS)
    throw new ActionError(`the message is too long: at most ${MAX_TEXT_CHARS} characters`);
  const handle = new SessionHandle({ home, id, env });
  if (await handle.connect({ follow: false })) {
    try {
      const result = await handle.send(text);
      return `delivered ${result.delivered}`;
    } finally {
      handle.close();
    }
  }
  await handle.revive({ message: text, connect: false });
  return "the session was not running: resumed it with your message";
}

export async function interrupt(home: string, id: string, env: NodeJS.ProcessEnv): Promise<string> {
  const handle = new SessionHandle({ home, id, env });
  if (!(await handle.connect({ follow: false }))) throw new ActionError("the session is not running");
  try {
    const { interrupted } = await handle.call("interrupt");
    return interrupted ? "interrupted" : "nothing was running";
  } finally {
    handle.close();
  }
}

export async function stop(home: string, id: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (await stopHeldByStub(home, id)) return "stopped";
  const handle = new SessionHandle({ home, id, env });
  if (!(await handle.connect({ follow: false }))) throw new ActionError("the session is not running");
  await handle.stop();
  return "stopped";
}

/** The requests waiting for a person now (none when no host serves the session). */
export async function approvals(home: string, id: string, env: NodeJS.ProcessEnv): Promise<unknown[]> {
  const handle = new SessionHandle({ home, id, env });
  if (!(await handle.connect({ follow: false }))) return [];
  try {
    return (await handle.call("approvals")).pending;
  } finally {
    handle.close();
  }
}

const REPLIES = ["once", "session", "project", "deny"] as const;

/** A person's answer to request `request`, through the host's `approve` as the UI's dialog gives it. */
export async function approve(
  home: string,
  id: string,
  env: NodeJS.ProcessEnv,
  request: unknown,
  answer: unknown,
): Promise<string> {
  if (typeof request !== "string" || !/^[0-9a-f]{1,32}$/.test(request))
    throw new ActionError("request must be the id of a waiting request");
  const reply = REPLIES.find((r) => r === answer);
  if (!reply) throw new ActionError('answer must be "once", "session", "project" or "deny"');
  const handle = new SessionHandle({ home, id, env });
  if (!(await handle.connect({ follow: false }))) throw new ActionError("the session is not running");
  try {
    const { answered } = await handle.call("approve", { id: request, answer: reply, from: "web" });
    if (!answered) throw new ActionError(`request ${request} was answered elsewhere`);
    return reply === "deny" ? "denied" : "allowed";
  } finally {
    handle.close();
  }
}

/** What steers the session's work: its goal and autonomous mode, as `/goal` and `/autonomous status` say. */
interface Steering {
  goal: string | null;
  done: boolean;
  autonomy: { gates: string[] } | null;
}

/** The session's goal and autonomy now; null when no host serves it (they live in the host). */
export async function steering(home: string, id: string, env: NodeJS.ProcessEnv): Promise<Steering | null> {
  const handle = new SessionHandle({ home, id, env });
  if (!(await handle.connect({ follow: false }))) return null;
  try {
    const { goal, done } = await handle.call("goal", {});
    const { autonomy } = await handle.call("autonomy", { mode: "status" });
    return { goal, done, autonomy };
  } finally {
    handle.close();
  }
}

/**
 * `/goal TEXT` or `/autonomous on GATES… | off` from the page: the same host methods, checked by the
 * host's own protocol (a refusal is said to the person). Answers the steering after the change.
 */
export async function steer(
  home: string,
  id: string,
  env: NodeJS.ProcessEnv,
  change: { goal?: unknown; autonomy?: unknown; gates?: unknown },
): Promise<Steering> {
  if (change.goal !== undefined && (typeof change.goal !== "string" || change.goal.trim() === ""))
    throw new ActionError("the goal is empty");
  if (change.autonomy !== undefined && change.autonomy !== "on" && change.autonomy !== "off")
    throw new ActionError('autonomy must be "on" or "off"');
  const gates = change.gates ?? [];
  if (!Array.isArray(gates) || !gates.every((g) => typeof g === "string"))
    throw new ActionError("gates must be a list of shell commands");
  const handle = new SessionHandle({ home, id, env });
  if (!(await handle.connect({ follow: false })))
    throw new ActionError("the session is not running: send it a message first, then steer it");
  try {
    if (typeof change.goal === "string") await handle.call("goal", { text: change.goal });
    if (change.autonomy === "on")
      await handle.call("autonomy", { mode: "on", gates: gates.map((g) => g.trim()).filter(Boolean) });
    if (change.autonomy === "off") await handle.call("autonomy", { mode: "off" });
    const { goal, done } = await handle.call("goal", {});
    const { autonomy } = await handle.call("autonomy", { mode: "status" });
    return { goal, done, autonomy };
  } catch (error) {
    if (error instanceof RpcError) throw new ActionError(error.message);
    throw error;
  } finally {
    handle.close();
  }
}
