// The collection a host runs when it goes quiet (src/host/idle-gc.ts) really frees promoted garbage.
import v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { IdleCollector } from "../../src/host/idle-gc.js";
import { until } from "../support/wait.js";

/** Garbage that lives long enough to be promoted to the old generation, then is dropped. */
async function promotedGarbage(mb: number): Promise<void> {
  let keep: string[][] = [];
  for (let i = 0; i < mb; i++) {
    keep.push(Array.from({ length: 4096 }, (_, j) => `${i}:${j}:${"x".repeat(200)}`));
    await new Promise((r) => setImmediate(r)); // survives a few young collections meanwhile
  }
  keep = [];
  expect(keep).toEqual([]);
}

const oldSpaceUsed = () =>
  v8.getHeapSpaceStatistics().find((s) => s.space_name === "old_space")?.space_used_size ?? 0;

/** Resolves once a collector told idle now (quiet time 50 ms, no gap) has collected. */
async function quietTimePassed(): Promise<void> {
  const control = new IdleCollector(50, 0);
  control.idle();
  await until(() => (control.runs === 1 ? true : undefined));
}

describe("IdleCollector", () => {
  it("collects once the process has been quiet, and the old generation shrinks back", async () => {
    const collector = new IdleCollector(50, 0);
    await promotedGarbage(60);
    const before = oldSpaceUsed();
    collector.idle();
    await until(() => (collector.runs === 1 ? true : undefined));
    expect(oldSpaceUsed()).toBeLessThan(before - 20 * 1024 * 1024);
  });

  it("never collects while busy, and at most once per gap", async () => {
    const collector = new IdleCollector(50, 60_000);
    collector.idle();
    collector.busy();
    // A control with the same quiet time, told later: once it has collected, the one told busy had its chance.
    await quietTimePassed();
    expect(collector.runs).toBe(0);
    collector.idle();
    await until(() => (collector.runs === 1 ? true : undefined));
    collector.idle(); // within the gap: waits for it
    await quietTimePassed();
    expect(collector.runs).toBe(1);
    collector.stop();
  });
});
