// "The same gate failed N times with no change in the workspace": the agent is going round in circles and
// another turn will not help. The workspace is compared by its checkpoint fingerprint (a tree hash).

import type { GatesRun } from "./gates.js";

export class GateStall {
  private key: string | undefined;
  private count = 0;

  /**
   * Records a gates run and the workspace fingerprint taken with it; returns how many runs in a row
   * failed at the same gate with the same fingerprint (0 after a pass). Without a fingerprint (no
   * checkpoints) nothing can be proven unchanged, so the count stays at 1.
   */
  record(run: GatesRun, fingerprint: string | null): number {
    const failed = run.results.find((r) => !r.passed);
    if (!failed) {
      this.key = undefined;
      this.count = 0;
      return 0;
    }
    const key = fingerprint === null ? undefined : `${failed.command}\0${fingerprint}`;
    this.count = key !== undefined && key === this.key ? this.count + 1 : 1;
    this.key = key;
    return this.count;
  }
}
