// Refinements proposed and not yet applied, each under a one-time key: the apply that names a key takes
// its refinement, so a refinement applies once. Two callers keep such a list, both in the session host
// (the Python side keeps none: its `Refinement` holds the key and sends it back):
// - the kernel's `harness.refine()` → `Refinement.apply()` (harness-api.ts), one list per agent, kept
//   without a time limit (the key lives in a Python variable for as long as the agent runs, and nothing
//   but that agent's own kernel can name it) but only the KERNEL_KEEP newest: a long session that
//   refines and never applies would otherwise grow it without end;
// - a front end's `refine` → `refine.apply` (refine-rpc.ts), one list per session, answered by a person;
//   any client of the session's socket may call `refine.apply`, so the key is a token nobody guesses, and
//   a question nobody answered (the session host runs for days) is forgotten after an hour or behind
//   newer ones.
// Both lists are this class, so "applies once" and the forgetting are written here only. A key forgotten
// is remembered as such (the newest FORGOTTEN_KEYS of them, a few bytes each), so an apply that names it
// is told it came too late rather than that there is no such refinement.

/** How many refinements, and how long (none: as long as the list), are kept waiting. */
interface KeepLimits {
  count: number;
  ms?: number;
}

/** The kernel's list (harness-api.ts): the newest this many refinements not yet applied, per agent. */
export const KERNEL_KEEP: KeepLimits = { count: 16 };

const FORGOTTEN_KEYS = 1024;

export class PendingRefinements<T> {
  private readonly kept = new Map<string, { value: T; at: number }>();
  private readonly forgotten = new Set<string>();

  constructor(private readonly limits?: KeepLimits) {}

  /** Keeps `value` under `key` until take(key); the oldest go first when past the limits. */
  keep(key: string, value: T): void {
    this.forgetOld();
    if (this.limits) {
      for (const oldest of this.kept.keys()) {
        if (this.kept.size < this.limits.count) break;
        this.forget(oldest);
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

  /** Whether `key` was kept and then forgotten (past the limits) before anyone took it. */
  wasForgotten(key: string): boolean {
    this.forgetOld();
    return this.forgotten.has(key);
  }

  private forgetOld(): void {
    const ms = this.limits?.ms;
    if (ms === undefined) return;
    const now = Date.now();
    for (const [key, { at }] of this.kept) if (now - at > ms) this.forget(key);
  }

  private forget(key: string): void {
    this.kept.delete(key);
    this.forgotten.add(key);
    for (const oldest of this.forgotten) {
      if (this.forgotten.size <= FORGOTTEN_KEYS) break;
      this.forgotten.delete(oldest);
    }
  }
}
