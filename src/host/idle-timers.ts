// The two clocks of a detached host between turns: after `kernelIdleMs` it frees its kernel (and may
// hand its place to a stub: src/host/handoff.ts); after `idleExitMs` it exits. Both start again at
// every turn's end and stop while a client watches. Either may be longer than setTimeout can take
// (--idle-timeout in seconds): long-timeout.ts waits it out.
import { type LongTimeout, longTimeout } from "../config/long-timeout.js";

export class IdleTimers {
  private kernelTimer: LongTimeout | undefined;
  private exitTimer: LongTimeout | undefined;
  /** When the host exits if nothing happens (epoch ms); 0 while not armed. */
  deadline = 0;

  constructor(
    private readonly kernelIdleMs: number,
    private readonly idleExitMs: number,
  ) {}

  arm(onKernelIdle: () => void, onIdleExit: () => void): void {
    this.clear();
    this.kernelTimer = longTimeout(onKernelIdle, this.kernelIdleMs);
    this.deadline = Date.now() + this.idleExitMs;
    this.exitTimer = longTimeout(onIdleExit, this.idleExitMs);
  }

  clear(): void {
    this.kernelTimer?.clear();
    this.exitTimer?.clear();
    this.deadline = 0;
  }
}
