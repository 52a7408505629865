// PKCE (RFC 7636) with S256, and the `state` that ties a callback to the sign-in that asked for it.
import { createHash, randomBytes } from "node:crypto";

interface Pkce {
  /** Kept by relm, sent only to the token endpoint. */
  verifier: string;
  /** base64url(SHA-256(verifier)), sent in the authorize URL. */
  challenge: string;
}

export function createPkce(): Pkce {
  // 32 random bytes give the 43-character verifier the RFC recommends.
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: challengeOf(verifier) };
}

export function challengeOf(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export function createState(): string {
  return randomBytes(24).toString("base64url");
}
