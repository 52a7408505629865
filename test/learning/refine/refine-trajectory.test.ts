// What a refinement shows the refine model of a session: its events after the last refinement, and when
// they are too long, the first (the task) and the newest, with the events left out between them named.
import { describe, expect, it } from "vitest";
import { collectTrajectory } from "../../../src/learning/refine/refine-trajectory.js";
import type { JournalEvent } from "../../../src/session/types.js";

const t = "2026-01-01T00:00:00.000Z";
const user = (n: number, text: string) => ({ n, t, type: "user", text }) as unknown as JournalEvent;

describe("collectTrajectory", () => {
  it("shows every event after `after` when they fit", () => {
    const events = [user(1, "old task"), user(2, "the task"), user(3, "more")];
    const trajectory = collectTrajectory(events, 1);
    expect(trajectory).toMatchObject({ from: 2, to: 3, omitted: 0 });
    expect([...trajectory.shown]).toEqual([2, 3]);
    expect(trajectory.text).not.toContain("left out");
    expect(trajectory.texts.get(2)).toContain("the task");
  });

  it("keeps the first event and the newest ones when they do not fit, naming the events left out", () => {
    const events = [
      user(1, "THE TASK"),
      ...Array.from({ length: 60 }, (_, i) => user(i + 2, `${i + 2}:${"x".repeat(1000)}`)),
    ];
    const trajectory = collectTrajectory(events, 0);
    const shown = [...trajectory.shown];
    expect(shown[0]).toBe(1);
    expect(shown.at(-1)).toBe(61);
    expect(trajectory.omitted).toBe(61 - shown.length);
    const firstKept = shown[1] as number;
    expect(trajectory.text).toContain(`[events 2–${firstKept - 1} left out to keep this short]`);
    expect(trajectory.text.length).toBeLessThanOrEqual(40_000);
    expect(trajectory).toMatchObject({ from: 1, to: 61 });
    expect(trajectory.text.indexOf("THE TASK")).toBeLessThan(trajectory.text.indexOf("left out"));
  });
});
