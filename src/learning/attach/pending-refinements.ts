// Refinements proposed and not yet applied, each under a one-time key: the apply that names a key takes
// its refinement, so a refinement applies once. Two callers keep such a list, both in the session host
// (the Python side keeps none: its `Refinement` holds the key and sends it back):
// - the kernel's `harness.refine()` → `Refinement.apply()` (harness-api.ts), one list per agent, kept
//   without limit: the key lives in a Python variable for as long as the agent runs, and nothing but
//   that agent's own kernel can name it;
// - a front end's `refine` → `refine.apply` (refine-rpc.ts), one list per session, answered by a person;
//   any client of the session's socket may call `refine.apply`, so the key is a token nobody guesses, and
//   a question nobody answered (the session host runs for days) is forgotten after an hour or behind
//   newer ones.
// Both lists are this class, so "applies once" and the forgetting are written here only.

/** How long, and how many, refinements are kept waiting (none: until the list itself goes). */
interface KeepLimits {
  ms: number;
  count: number;
}

export class PendingRefinements<T> {
  private readonly kept = new Map<string, { value: T; at: number }>();

  constructor(private readonly limits?: KeepLimits) {}

  /** Keeps `value` under `key` until take(key); the oldest go first when past the limits. */
  keep(key: string, value: T): void {
    this.forgetOld();
    if (this.limits) {
      for (const oldest of this.kept.keys()) {
        if (this.kept.size < this.limits.count) break;
        this.kept.delete(oldest);
      }
    }
    this.kept.set(key, { value, at: Date.now() });
  }

  /** The value kept under `key`, forgotten as it is handed out; undefined if none (applied, or forgotten). */
  take(key: string): T | undefined {
    this.forgetOld();
    const found = this.kept.get(key);
    this.kept.delete(key);
    return found?.value;
  }

  private forgetOld(): void {
    if (!this.limits) return;
    const now = Date.now();
    for (const [key, { at }] of this.kept) if (now - at > this.limits.ms) this.kept.delete(key);
  }
}
