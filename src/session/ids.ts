import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
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

/** Sub-agents nest (a child's children/ …): deeper than this is not looked into. */
const MAX_CHILD_DEPTH = 12;

/** Every sub-agent of `sessionDir` at any depth: its id and folder (children/ID/…/children/ID). */
function subAgentDirs(sessionDir: string): { id: string; dir: string }[] {
  const found: { id: string; dir: string }[] = [];
  let level = [sessionDir];
  for (let depth = 0; depth < MAX_CHILD_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const parent of level) {
      for (const id of listSessionDirs(join(parent, "children"))) {
        const dir = join(parent, "children", id);
        found.push({ id, dir });
        next.push(dir);
      }
    }
    level = next;
  }
  return found;
}

/**
 * A session or one of its sub-agents, by id or unique prefix: the agent's folder and its root session.
 * Sessions are looked up first (a prefix that matches one is that session); only when none matches are
 * the sub-agents of every session searched, for the id relm printed for a child (`sub-agent NAME (ID)`).
 */
export function resolveAgent(sessionsDir: string, prefixOrId: string): { root: string; dir: string } {
  try {
    const id = resolveSessionId(sessionsDir, prefixOrId);
    return { root: id, dir: join(sessionsDir, id) };
  } catch (error) {
    if (!(error instanceof SessionNotFoundError)) throw error;
    const raw = prefixOrId.trim();
    const query = normalize(raw);
    const agents = listSessionDirs(sessionsDir).flatMap((root) =>
      subAgentDirs(join(sessionsDir, root)).map((a) => ({ ...a, root })),
    );
    const exact = agents.filter((a) => a.id === raw || a.id === query);
    const matches =
      exact.length > 0 ? exact : agents.filter((a) => a.id.startsWith(raw) || a.id.startsWith(query));
    if (raw === "" || matches.length === 0) throw error;
    if (matches.length > 1) throw new AmbiguousSessionIdError(prefixOrId, matches.map((a) => a.id).sort());
    const { root, dir } = matches[0]!;
    return { root, dir };
  }
}
