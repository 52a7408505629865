// Keys out of every relm process's /proc/PID/environ (docs/security.md): a relm process started with
// them (by the user, an editor, an MCP client) hides them in its own start-up environment, and the
// relm processes it starts (hosts, stubs, the waker) get them on a pipe instead (key-pipe.ts).
import { hideInEnvironBlock } from "../config/environ-block.js";
import { isSecretEntry } from "../config/secret-env.js";
import { type Keys, receiveKeys } from "./key-pipe.js";

/** `env` in two: what a relm process may be started with, and the secrets to hand it on a pipe. */
export function splitKeys(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; keys: Keys } {
  const plain: NodeJS.ProcessEnv = {};
  const keys: Keys = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretEntry(name, value)) keys[name] = value;
    else plain[name] = value;
  }
  return { env: plain, keys };
}

/**
 * First thing a relm process does that may start a kernel or another relm process: takes the keys its
 * parent handed over into process.env (the heap, never the start-up block), and overwrites the values
 * of any secret it was started with in its start-up block (Linux). The names hidden there.
 */
export function keepKeysPrivate(env: NodeJS.ProcessEnv = process.env): string[] {
  for (const [name, value] of Object.entries(receiveKeys(env))) env[name] = value;
  return hideInEnvironBlock(isSecretEntry);
}
