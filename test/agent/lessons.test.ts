// The note an agent reads when a lesson is applied mid-session: where it was learned, in words.

import { describe, expect, it } from "vitest";
import { type Lesson, LessonInbox } from "../../src/agent/lessons.js";

const lesson = (events: Lesson["events"], session = "s1aaaaaa"): Lesson => ({
  text: "- [memory] config.txt is a Python literal",
  revision: "r1234567",
  scope: "session",
  entries: ["mem-1"],
  session,
  events,
});

function noteOf(l: Lesson, reader = "s1aaaaaa"): string {
  const inbox = new LessonInbox(reader);
  inbox.deliver(l);
  const [delivery] = inbox.take();
  expect(delivery?.event.text).toBe(delivery?.note);
  return delivery?.note.split("\n")[0] ?? "";
}

describe("a lesson note", () => {
  it("names one event as event N, a range as events N–M, another session's by its id", () => {
    expect(noteOf(lesson({ from: 6, to: 6 }))).toBe(
      "[relm: lesson learned from event 6; it is in the harness (session scope, revision r1234567) and applies from now on]",
    );
    expect(noteOf(lesson({ from: 9, to: 14 }))).toContain("learned from events 9–14;");
    expect(noteOf(lesson({ from: 3, to: 3 }), "c2bbbbbb")).toContain(
      "learned from event 3 of session s1aaaaaa;",
    );
    expect(noteOf(lesson(null))).toMatch(/^\[relm: lesson learned; it is in the harness/);
  });
});
