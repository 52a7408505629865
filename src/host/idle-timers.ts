// The two clocks of a detached host between turns: after `kernelIdleMs` it frees its kernel (and may
// hand its place to a stub: src/host/handoff.ts); after `idleExitMs` it exits. Both start again at
// every turn's end and stop while a client watches.

export class IdleTimers {
  private kernelTimer: NodeJS.Timeout | undefined;
  private exitTimer: NodeJS.Timeout | undefined;
  /** When the host exits if nothing happens (epoch ms); 0 while not armed. */
  deadline = 0;

  constructor(
    private readonly kernelIdleMs: number,
    private readonly idleExitMs: number,
  ) {}

  arm(onKernelIdle: () => void, onIdleExit: () => void): void {
    this.clear();
    this.kernelTimer = setTimeout(onKernelIdle, this.kernelIdleMs);
    this.deadline = Date.now() + this.idleExitMs;
    this.exitTimer = setTimeout(onIdleExit, this.idleExitMs);
  }

  clear(): void {
    clearTimeout(this.kernelTimer);
    clearTimeout(this.exitTimer);
    this.deadline = 0;
  }
}
