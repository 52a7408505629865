// $RELM_HOME/auth.json: each subscription's tokens, readable by the user only, never in config.json.
// Writers (a sign-in, a refresh in any of several session hosts) hold auth.json.lock while they read,
// change and atomically replace the file, so two hosts refreshing at once cannot lose each other's tokens
// (a refresh token is often good for one use only: the loser must re-read, not refresh again).
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../../config/dirs.js";
import { writePrivateJson } from "../../config/private-file.js";
import { processExists } from "../../config/process.js";
import type { SubscriptionId } from "../../config/subscriptions.js";
import { isSubscriptionId } from "../../config/subscriptions.js";
import type { Tokens } from "./types.js";

export interface AuthFile {
  version: 1;
  subscriptions: Partial<Record<SubscriptionId, Tokens>>;
}

export function authPath(home: string): string {
  return join(home, "auth.json");
}

function isTokens(value: unknown): value is Tokens {
  const t = value as Tokens | undefined;
  return (
    !!t && typeof t.access === "string" && typeof t.refresh === "string" && typeof t.expires === "number"
  );
}

/** The saved tokens; a missing or unreadable file holds none (a damaged one is replaced at the next save). */
export function readAuthFile(home: string): AuthFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(authPath(home), "utf8"));
  } catch {
    return { version: 1, subscriptions: {} };
  }
  const subscriptions: AuthFile["subscriptions"] = {};
  const found = (parsed as { subscriptions?: Record<string, unknown> } | null)?.subscriptions ?? {};
  for (const [id, tokens] of Object.entries(found)) {
    if (isSubscriptionId(id) && isTokens(tokens)) subscriptions[id] = tokens;
  }
  return { version: 1, subscriptions };
}

export function savedTokens(home: string, id: SubscriptionId): Tokens | undefined {
  return readAuthFile(home).subscriptions[id];
}

function writeAuthFile(home: string, file: AuthFile): void {
  writePrivateJson(authPath(home), file);
}

const LOCK_STALE_MS = 60_000;
const LOCK_WAIT_MS = 90_000;

/** A lock left by a process that died (or hung past any refresh's time) is taken over. */
function lockIsStale(path: string): boolean {
  try {
    const pid = Number(readFileSync(path, "utf8").trim());
    if (Number.isInteger(pid) && pid > 0 && !processExists(pid)) return true;
    return Date.now() - statSync(path).mtimeMs > LOCK_STALE_MS;
  } catch {
    // Gone already, or half-written this instant: try again.
    return false;
  }
}

/** Runs `fn` holding auth.json.lock (an O_EXCL file with the holder's pid). */
export async function withAuthLock<T>(home: string, fn: () => Promise<T>): Promise<T> {
  makeDirs(home, 0o700);
  const lock = `${authPath(home)}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
    try {
      const fd = openSync(lock, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (lockIsStale(lock)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`${lock} is held by another relm process; remove it if none runs`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Saves (or with undefined, removes) one subscription's tokens; the others are re-read and kept. */
export async function storeTokens(
  home: string,
  id: SubscriptionId,
  tokens: Tokens | undefined,
): Promise<void> {
  await withAuthLock(home, async () => {
    const file = readAuthFile(home);
    if (tokens) file.subscriptions[id] = tokens;
    else delete file.subscriptions[id];
    writeAuthFile(home, file);
  });
}

/** Inside withAuthLock only: replaces one subscription's tokens. */
export function writeTokensLocked(home: string, id: SubscriptionId, tokens: Tokens): void {
  const file = readAuthFile(home);
  file.subscriptions[id] = tokens;
  writeAuthFile(home, file);
}
