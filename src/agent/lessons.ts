// Lessons that take effect at once (issue 21): when a plugin applies a harness edit mid-session, every
// running agent of the tree reads it before its next model request, as one note appended to its
// conversation. Appending keeps the request a byte-for-byte extension of the previous one (the provider's
// prompt cache still hits); the system prompt takes the lesson in at the agent's next compaction, which
// drops the note so it is never said twice.

import type { Message } from "../llm/types.js";
import type { JournalBodyOf } from "../session/types.js";

/** A lesson a plugin applied just now (hooks.ts: `AgentTree.lessons.teach`). */
export interface Lesson {
  /** The applied entries as the harness block renders them, one per line. */
  readonly text: string;
  /** The harness revision that holds them, and its scope. */
  readonly revision: string;
  readonly scope: string;
  /** The entries it added, changed or removed. */
  readonly entries: readonly string[];
  /** The session whose journal `events` number, and the events the lesson was learned from. */
  readonly session: string;
  readonly events: { readonly from: number; readonly to: number } | null;
}

/** How every lesson note starts: also how a compaction recognises one to drop. */
const LESSON_NOTE_HEAD = "[relm: lesson learned";

/** The note as the agent `self` reads it (fixed format; its journal event keeps the exact text). */
function lessonNote(lesson: Lesson, self: string): string {
  const { events } = lesson;
  // One event is "event 6", as the learning notices say (session/learning-notice.ts); "events 6" read as a slip.
  const range = !events
    ? ""
    : events.to === events.from
      ? ` from event ${events.from}`
      : ` from events ${events.from}–${events.to}`;
  const where = lesson.session === self ? "" : ` of session ${lesson.session}`;
  return (
    `${LESSON_NOTE_HEAD}${range}${lesson.events ? where : ""}; it is in the harness (${lesson.scope} scope, ` +
    `revision ${lesson.revision}) and applies from now on]\n${lesson.text}`
  );
}

/** The journal event that appends `note` to an agent's conversation (resume.ts replays it). */
function lessonEvent(lesson: Lesson, note: string): JournalBodyOf<"lesson"> {
  return {
    type: "lesson",
    text: note,
    revision: lesson.revision,
    scope: lesson.scope,
    entries: [...lesson.entries],
    session: lesson.session,
    events: lesson.events ? { ...lesson.events } : null,
  };
}

function isLessonNote(m: Message): boolean {
  if (m.role !== "user" || m.content.length !== 1) return false;
  const part = m.content[0];
  return part?.type === "text" && part.text.startsWith(LESSON_NOTE_HEAD);
}

/**
 * After a compaction the rebuilt system prompt carries every lesson: notes among the turns it kept
 * verbatim go (in place, so live sessions and resumed ones drop the same messages).
 */
export function dropLessonNotes(messages: Message[]): void {
  const kept = messages.filter((m) => !isLessonNote(m));
  if (kept.length !== messages.length) messages.splice(0, messages.length, ...kept);
}

/** A lesson as one agent reads it: the note appended to its conversation and the event journaling it. */
export interface LessonDelivery {
  readonly note: string;
  readonly event: JournalBodyOf<"lesson">;
}

/** One agent's lessons not yet read: appended at its next turn boundary, dropped by a rebuilt prompt. */
export class LessonInbox {
  private pending: Lesson[] = [];

  constructor(private readonly owner: string) {}

  deliver(lesson: Lesson): void {
    this.pending.push(lesson);
  }

  /** The lessons not read yet, as this agent reads them; reading clears them. */
  take(): LessonDelivery[] {
    return this.pending.splice(0).map((lesson) => {
      const note = lessonNote(lesson, this.owner);
      return { note, event: lessonEvent(lesson, note) };
    });
  }

  /** The system prompt was rebuilt with the harness as it is now: it says all of them already. */
  clear(): void {
    this.pending = [];
  }
}

/** The running agents of one tree, each with its inbox: a lesson reaches all of them. */
export class LessonBoard {
  private readonly inboxes = new Map<string, LessonInbox>();

  join(agentId: string, inbox: LessonInbox): void {
    this.inboxes.set(agentId, inbox);
  }

  leave(agentId: string): void {
    this.inboxes.delete(agentId);
  }

  /** Hands the lesson to every running agent; returns their ids. */
  teach(lesson: Lesson): string[] {
    for (const inbox of this.inboxes.values()) inbox.deliver(lesson);
    return [...this.inboxes.keys()];
  }
}
