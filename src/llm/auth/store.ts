// $RELM_HOME/auth.json: each subscription's tokens, readable by the user only, never in config.json.
// Writers (a sign-in, a refresh in any of several session hosts) hold auth.json.lock while they read,
// change and atomically replace the file, so two hosts refreshing at once cannot lose each other's tokens
// (a refresh token is often good for one use only: the loser must re-read, not refresh again).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../../config/dirs.js";
import { ConfigError } from "../../config/errors.js";
import { withPidLock } from "../../config/pid-lock.js";
import { writePrivateJson } from "../../config/private-file.js";
import type { SubscriptionId } from "../../config/subscriptions.js";
import { isSubscriptionId } from "../../config/subscriptions.js";
import type { Tokens } from "./types.js";

interface AuthFile {
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

/** A lock older than this is taken over even from a live holder: no refresh takes that long. */
const LOCK_STALE_MS = 60_000;
const LOCK_WAIT_MS = 90_000;

/** Runs `fn` holding auth.json.lock (src/config/pid-lock.ts: one left by a process that died is taken over). */
export async function withAuthLock<T>(home: string, fn: () => Promise<T>): Promise<T> {
  makeDirs(home, 0o700);
  const lock = `${authPath(home)}.lock`;
  return withPidLock(lock, fn, {
    waitMs: LOCK_WAIT_MS,
    maxAgeMs: LOCK_STALE_MS,
    busyError: (holder) =>
      new ConfigError(
        `${lock} is held by ${holder ? `process ${holder.pid}` : "another relm process"} (a sign-in or a token refresh); ` +
          "if no relm is running, remove that file and try again",
      ),
  });
}

/** Saves (or with undefined, removes) one subscription's tokens; the others are re-read and kept. */
export async function storeTokens(
  home: string,
  id: SubscriptionId,
  tokens: Tokens | undefined,
): Promise<void> {
  await withAuthLock(home, async () => writeTokensLocked(home, id, tokens));
}

/** storeTokens inside withAuthLock (a refresh holds it already). */
export function writeTokensLocked(home: string, id: SubscriptionId, tokens: Tokens | undefined): void {
  const file = readAuthFile(home);
  if (tokens) file.subscriptions[id] = tokens;
  else delete file.subscriptions[id];
  writePrivateJson(authPath(home), file);
}
