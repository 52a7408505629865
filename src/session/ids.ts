import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { UserError } from "../config/errors.js";

// Crockford base32 without i, l, o, u: nothing to confuse when reading an id aloud or typing it.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const ID_LENGTH = 8;
const MAX_LISTED = 10;

export class SessionNotFoundError extends UserError {
  override readonly name = "SessionNotFoundError";
  constructor(
    readonly query: string,
    readonly sessionsDir: string,
  ) {
    super(`No session matches "${query}" in ${sessionsDir}. Run \`relm agents\` to list sessions.`);
  }
}

export class AmbiguousSessionIdError extends UserError {
  override readonly name = "AmbiguousSessionIdError";
  constructor(
    readonly query: string,
    readonly matches: string[],
  ) {
    const shown = matches.slice(0, MAX_LISTED).join(", ");
    const more = matches.length > MAX_LISTED ? ` and ${matches.length - MAX_LISTED} more` : "";
    super(`Session id prefix "${query}" is ambiguous: ${shown}${more}. Give more characters.`);
  }
}

/** 40 random bits: collisions are negligible for one user's sessions, and ids stay short to type. */
export function newSessionId(): string {
  const bytes = randomBytes(ID_LENGTH);
  let id = "";
  // 256 is a multiple of 32, so masking keeps every character equally likely.
  for (const b of bytes) id += ALPHABET[b & 31];
  return id;
}

/** Read the way Crockford intends, so a hand-typed "O" or "L" still finds the session. */
function normalize(query: string): string {
  return query.trim().toLowerCase().replace(/o/g, "0").replace(/[il]/g, "1");
}

function listSessionDirs(sessionsDir: string): string[] {
  try {
    return readdirSync(sessionsDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

/** An exact id, or a prefix matching exactly one session directory. */
export function resolveSessionId(sessionsDir: string, prefixOrId: string): string {
  const raw = prefixOrId.trim();
  if (raw === "") throw new SessionNotFoundError(prefixOrId, sessionsDir);
  const ids = listSessionDirs(sessionsDir);
  if (ids.includes(raw)) return raw;
  const query = normalize(raw);
  if (ids.includes(query)) return query;
  const matches = ids.filter((id) => id.startsWith(raw) || id.startsWith(query)).sort();
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new SessionNotFoundError(prefixOrId, sessionsDir);
  throw new AmbiguousSessionIdError(prefixOrId, matches);
}
