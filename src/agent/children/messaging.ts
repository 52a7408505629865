import { asRecord, KernelCallError, requiredString } from "../kernel-api/errors.js";
import type { ChildManager } from "./manager.js";

const MAX_MESSAGE_BYTES = 16 * 1024;
const MAX_INBOX = 100;

interface Received {
  from: string;
  text: string;
  time: string;
}

/**
 * An agent's incoming messages: unread ones wait for the model's next turn boundary; every one is also
 * kept (bounded) for inbox() in code.
 */
export class Mailbox {
  private readonly unread: { from: string; text: string }[] = [];
  private readonly received: Received[] = [];
  /**
   * Told when a message is left unread (a child's send("parent"), a person's message during a turn): a
   * session host starts a turn for it when its agent is idle, since no turn boundary is coming.
   */
  onUnread: (() => void) | undefined;

  constructor(private readonly owner: string) {}

  deliver(from: string, text: string): void {
    if (this.unread.length >= MAX_INBOX) {
      throw new KernelCallError(`the inbox of agent ${this.owner} is full (${MAX_INBOX} messages unread)`);
    }
    this.unread.push({ from, text });
    this.note(from, text);
    this.onUnread?.();
  }

  /**
   * A message the model reads as the text of the turn it starts (an idle session's): not unread, but
   * inbox() in that turn's cells must see it like any other.
   */
  note(from: string, text: string): void {
    this.received.push({ from, text, time: new Date().toISOString() });
    if (this.received.length > MAX_INBOX * 10) this.received.splice(0, this.received.length - MAX_INBOX * 10);
  }

  /** What the model has not read yet; reading clears it. */
  takeUnread(): { from: string; text: string }[] {
    return this.unread.splice(0);
  }

  get unreadCount(): number {
    return this.unread.length;
  }

  /** Whether a message from `from` waits unread (a schedule's tick: the next one is merged, not queued). */
  hasUnreadFrom(from: string): boolean {
    return this.unread.some((m) => m.from === from);
  }

  /** Everything delivered since the last call, for inbox(). */
  takeReceived(): Received[] {
    return this.received.splice(0);
  }
}

/** What messaging needs of the agent a kernel belongs to. */
export interface MessagingAgent {
  readonly id: string;
  /** The agent that started this one; none for the root. */
  readonly parent: { id: string; deliver(from: string, text: string): void } | undefined;
  /** Its running children by name or id ("all": every one). */
  readonly children: Pick<ChildManager, "recipients">;
  /** Messages to other sessions on this machine (provided by the host layer). */
  sendToSession?: (to: string, from: string, text: string) => Promise<void>;
  readonly mailbox: { takeReceived(): Received[] };
  record(body: { type: "message"; from: string; to: string; text: string }): unknown;
}

/**
 * `send(to, text)` / `inbox()` from Python. The sender is always this agent: a `from` in the request is
 * refused, so code in a kernel cannot speak for another agent.
 */
export async function handleMessageRequest(
  agent: MessagingAgent,
  method: string,
  raw: unknown,
): Promise<unknown> {
  const params = asRecord(raw, method);
  if (method === "msg.inbox") return agent.mailbox.takeReceived();
  if (method !== "msg.send") throw new KernelCallError(`the host has no method "${method}"`, "not_found");
  if ("from" in params) {
    throw new KernelCallError("send(): the sender is stamped by relm and cannot be given");
  }
  const to = requiredString(params, "to");
  const text = requiredString(params, "text");
  if (Buffer.byteLength(text) > MAX_MESSAGE_BYTES) {
    throw new KernelCallError(`send(): message too long (at most ${MAX_MESSAGE_BYTES} bytes)`);
  }
  if (to === "parent") {
    if (!agent.parent) throw new KernelCallError("send(): this agent has no parent", "not_found");
    agent.parent.deliver(agent.id, text);
    agent.record({ type: "message", from: agent.id, to: agent.parent.id, text });
    return { to: agent.parent.id };
  }
  const children = agent.children.recipients(to);
  if (children) {
    for (const child of children) {
      child.deliver("parent", text);
      agent.record({ type: "message", from: agent.id, to: child.id, text });
    }
    return { to: children.map((c) => c.id) };
  }
  if (!agent.sendToSession) throw new KernelCallError(`send(): no agent named "${to}"`, "not_found");
  await agent.sendToSession(to, agent.id, text);
  agent.record({ type: "message", from: agent.id, to, text });
  return { to };
}
