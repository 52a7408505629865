// What a session page can do to its session, each as `relm send`, `relm stop` and the UI's Escape do it:
// a connection to the host for the one call, closed after. A message to a session no host serves brings
// it back with the message, as `relm send` does.

import { APPROVAL_CHOICES } from "../commands/approval-words.js";
import { RpcError } from "../host/rpc.js";
import { SessionHandle } from "../host/session-handle.js";
import { stopHeldByStub } from "../host/stub-stop.js";

/** The page asked for something the session cannot do now: said to the person, not a server error. */
export class ActionError extends Error {
  override name = "ActionError";
}

const MAX_TEXT_CHARS = 16_000;

/** What steers the session's work: its goal and autonomous mode, as `/goal` and `/autonomous status` say. */
interface Steering {
  goal: string | null;
  done: boolean;
  autonomy: { gates: string[] } | null;
}

/** What a call to the host answered, or the person told no host serves the session. */
function running<T>(answer: T | undefined, why = "the session is not running"): T {
  if (answer === undefined) throw new ActionError(why);
  return answer;
}

async function steeringOf(handle: SessionHandle): Promise<Steering> {
  const { goal, done } = await handle.call("goal", {});
  const { autonomy } = await handle.call("autonomy", { mode: "status" });
  return { goal, done, autonomy };
}

/** The actions on session `id` of `home`. */
export class SessionActions {
  constructor(
    private readonly home: string,
    private readonly id: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** `use` on a connection to the session's host, closed after; undefined when no host serves the session. */
  private async withHost<T>(use: (handle: SessionHandle) => Promise<T>): Promise<T | undefined> {
    const handle = new SessionHandle({ home: this.home, id: this.id, env: this.env });
    if (!(await handle.connect({ follow: false }))) return undefined;
    try {
      return await use(handle);
    } finally {
      handle.close();
    }
  }

  async send(text: string): Promise<string> {
    if (text.trim() === "") throw new ActionError("the message is empty");
    if (text.length > MAX_TEXT_CHARS)
      throw new ActionError(`the message is too long: at most ${MAX_TEXT_CHARS} characters`);
    const said = await this.withHost(async (handle) => `delivered ${(await handle.send(text)).delivered}`);
    if (said !== undefined) return said;
    await new SessionHandle({ home: this.home, id: this.id, env: this.env }).revive({
      message: text,
      connect: false,
    });
    return "the session was not running: resumed it with your message";
  }

  async interrupt(): Promise<string> {
    const { interrupted } = running(await this.withHost((handle) => handle.call("interrupt")));
    return interrupted ? "interrupted" : "nothing was running";
  }

  async stop(): Promise<string> {
    if (await stopHeldByStub(this.home, this.id)) return "stopped";
    return running(await this.withHost((handle) => handle.stop().then(() => "stopped")));
  }

  /** The requests waiting for a person now (none when no host serves the session). */
  async approvals(): Promise<unknown[]> {
    return (await this.withHost((handle) => handle.call("approvals")))?.pending ?? [];
  }

  /** A person's answer to request `request`, through the host's `approve` as the UI's dialog gives it. */
  async approve(request: unknown, answer: unknown): Promise<string> {
    if (typeof request !== "string" || !/^[0-9a-f]{1,32}$/.test(request))
      throw new ActionError("request must be the id of a waiting request");
    const reply = APPROVAL_CHOICES.find((c) => c.reply === answer)?.reply;
    if (!reply) {
      const words = APPROVAL_CHOICES.map((c) => `"${c.reply}"`);
      throw new ActionError(`answer must be ${words.slice(0, -1).join(", ")} or ${words.at(-1)}`);
    }
    const { answered } = running(
      await this.withHost((handle) => handle.call("approve", { id: request, answer: reply, from: "web" })),
    );
    if (!answered) throw new ActionError(`request ${request} was answered elsewhere`);
    return reply === "deny" ? "denied" : "allowed";
  }

  /** The session's goal and autonomy now; null when no host serves it (they live in the host). */
  async steering(): Promise<Steering | null> {
    return (await this.withHost(steeringOf)) ?? null;
  }

  /**
   * `/goal TEXT` or `/autonomous on GATES… | off` from the page: the same host methods, checked by the
   * host's own protocol (a refusal is said to the person). Answers the steering after the change.
   */
  async steer(change: { goal?: unknown; autonomy?: unknown; gates?: unknown }): Promise<Steering> {
    if (change.goal !== undefined && (typeof change.goal !== "string" || change.goal.trim() === ""))
      throw new ActionError("the goal is empty");
    if (change.autonomy !== undefined && change.autonomy !== "on" && change.autonomy !== "off")
      throw new ActionError('autonomy must be "on" or "off"');
    const gates = change.gates ?? [];
    if (!Array.isArray(gates) || !gates.every((g) => typeof g === "string"))
      throw new ActionError("gates must be a list of shell commands");
    const changed = this.withHost(async (handle) => {
      if (typeof change.goal === "string") await handle.call("goal", { text: change.goal });
      if (change.autonomy === "on")
        await handle.call("autonomy", { mode: "on", gates: gates.map((g) => g.trim()).filter(Boolean) });
      if (change.autonomy === "off") await handle.call("autonomy", { mode: "off" });
      return steeringOf(handle);
    }).catch((error) => {
      throw error instanceof RpcError ? new ActionError(error.message) : error;
    });
    return running(await changed, "the session is not running: send it a message first, then steer it");
  }
}
