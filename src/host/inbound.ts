// Messages to a session host: what one may be, and how variables sent with it are told to the model.

import type { UserVariable } from "../agent/core/user-variables.js";
import type { AutonomousOutcome } from "../agent/gates/autonomy.js";
import { RPC, RpcError, refused } from "./rpc.js";

/** The longest message text a host takes; a front end puts more than this in a kernel variable. */
export const MAX_MESSAGE_BYTES = 16 * 1024;
const MAX_QUEUED = 100;

/** A message waiting for the agent: from a person (`user`), another session, or a schedule. */
export interface Inbound {
  from: string;
  text: string;
  /** Put into the root kernel (as str) before the model reads the message. */
  variables?: UserVariable[];
  /** Told how the turn that carried this message ended. */
  done?: (outcome: AutonomousOutcome) => void;
}

/**
 * Why a message's text is too long for a host, or undefined. Also checked by a launcher before it revives
 * a session with the message: the revived host takes its first message as a task, without this check.
 */
export function messageTooLong(text: string): string | undefined {
  return Buffer.byteLength(text) > MAX_MESSAGE_BYTES
    ? `message too long: at most ${MAX_MESSAGE_BYTES} bytes`
    : undefined;
}

/** Refuses a message that is too long, or one the session cannot take now (full inbox, stopping). */
export function checkInbound(text: string, queued: number, session: string, stopping: boolean): void {
  const tooLong = messageTooLong(text);
  if (tooLong) throw new RpcError(RPC.invalidParams, tooLong);
  if (queued >= MAX_QUEUED) {
    throw refused(`the inbox of session ${session} is full (${MAX_QUEUED} messages waiting)`);
  }
  if (stopping) throw refused(`session ${session} is stopping`);
}

/**
 * The message's text, with a note naming each variable set with it (`name: what`): the model must know
 * each one, but one the client already named in its text is not named twice.
 */
export function withVariablesNamed(text: string, named: string[]): string {
  const untold = named.filter((line) => !text.includes(line.slice(0, line.indexOf(":"))));
  return untold.length > 0
    ? `${text}\n\n[relm] Set in the kernel with this message: ${untold.join("; ")}`
    : text;
}
