import { maskCredentialUrls } from "../config/credential-urls.js";

const REDACTED = "[REDACTED]";

// Shorter strings would redact ordinary words and numbers; real keys and tokens are far longer.
const MIN_SECRET_LENGTH = 8;

/**
 * Replaces known secrets inside string values (and keys) before anything is serialised, and the password
 * of any URL that carries one (`postgres://app:[REDACTED]@db`), known or not. Working on values
 * rather than on the serialised line keeps every line valid JSON: a textual replace could cut through an
 * escape sequence such as `\n`.
 */
export class Redactor {
  private needles: string[] = [];
  /** How many entries of `secrets` the needles were built from. */
  private known = -1;

  /** `secrets` may grow later (a subscription's refreshed tokens): new entries count from the next use. */
  constructor(private readonly secrets: readonly string[] = []) {
    this.update();
  }

  private update(): void {
    if (this.secrets.length === this.known) return;
    this.known = this.secrets.length;
    const set = new Set<string>();
    for (const secret of this.secrets) {
      if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) continue;
      set.add(secret);
      // Inside a JSON document nested in a string (tool-call arguments) the secret appears escaped.
      const escaped = JSON.stringify(secret).slice(1, -1);
      if (escaped !== secret) set.add(escaped);
    }
    // Longest first, so a secret that contains another is removed whole.
    this.needles = [...set].sort((a, b) => b.length - a.length);
  }

  text(text: string): string {
    this.update();
    let out = text;
    for (const needle of this.needles) if (out.includes(needle)) out = out.replaceAll(needle, REDACTED);
    return maskCredentialUrls(out, REDACTED);
  }

  /**
   * How many characters at the end of `text` could be the start of a secret still being written (a
   * streamed answer cut between two pieces): a stream holds them back until the next piece decides.
   */
  openTail(text: string): number {
    this.update();
    let longest = 0;
    for (const needle of this.needles) {
      const from = Math.max(0, text.length - needle.length + 1);
      for (let at = from; at < text.length && text.length - at > longest; at++) {
        if (needle.startsWith(text.slice(at))) {
          longest = text.length - at;
          break;
        }
      }
    }
    return longest;
  }

  /** A copy of a JSON-shaped value with every string redacted. */
  value<T>(value: T): T {
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.text(k)] = this.walk(v);
      return out;
    }
    return value;
  }
}
