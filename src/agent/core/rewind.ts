// Rewinding a conversation (/rewind, Esc Esc in the UI): back to just before one of the person's earlier
// messages, and, if asked, the files to the checkpoint taken after it. The conversation before that
// message is rebuilt from the journal (resume.ts does the same replay, so a resumed or attached view
// rebuilds the rewound conversation, not the old one). The kernel cannot go back: the model is told.

import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { imageTypeOfFile } from "../../session/image-files.js";
import { JOURNAL_FILE, readJournal } from "../../session/index.js";
import type { JournalEvent } from "../../session/types.js";
import type { Agent } from "./agent.js";
import { conversationBefore } from "./resume.js";
import type { UserImage } from "./user-images.js";

/** One message of the person's that the conversation can go back to. */
export interface RewindPoint {
  /** The journal number of its `user` event. */
  n: number;
  /** What the person typed (relm's own notes before it left out). */
  text: string;
  /** When it was sent (ISO). */
  t: string;
}

/** What a rewind did. */
export interface RewindResult {
  to: number;
  /** The message gone back to, for the input (the person edits and sends it again). */
  text: string;
  /** The images sent with it (in the order of its `[image #N …]` markers), to go with it again. */
  images?: UserImage[];
  /** The files put back (the `undo` event says the same), or why not; absent: not asked for. */
  files?: { turn: number; changed: string[]; removed: string[] } | { none: string };
}

/** What the model reads after a rewind: its variables may hold what the removed turns computed. */
function rewindNote(files: boolean): string {
  return (
    "[relm] The user rewound this conversation to before one of their earlier messages: the turns after it " +
    `were removed${files ? ", and the files were put back as they were then" : " (the files were left as they are now)"}. ` +
    "The Python kernel cannot be rewound: its variables, imports and anything else in its memory still hold " +
    "what the removed turns left there."
  );
}

/**
 * relm's notes that a turn's text starts with (a resume, a mode switch: `[relm] …` paragraphs) are not
 * the person's words; what is left is what they typed.
 */
function typedText(text: string): string {
  const paragraphs = text.split("\n\n");
  while (paragraphs.length > 1 && paragraphs[0]?.startsWith("[relm] ")) paragraphs.shift();
  return paragraphs.join("\n\n");
}

/**
 * The person's messages still in the conversation, oldest first: `user` events they typed (not a turn an
 * autonomy continuation, a Stop hook, a schedule or another agent started: those carry `from`), less
 * those an earlier rewind went back before.
 */
/** The person's messages `agent`'s conversation can go back to, oldest first. */
export function rewindPointsOf(agent: Agent): RewindPoint[] {
  return rewindPoints(readJournal(join(agent.dir, JOURNAL_FILE)).events);
}

function rewindPoints(events: readonly JournalEvent[]): RewindPoint[] {
  const points: RewindPoint[] = [];
  for (const e of events) {
    if (e.type === "user" && e.from === undefined) points.push({ n: e.n, text: typedText(e.text), t: e.t });
    else if (e.type === "rewind") {
      const at = points.findIndex((p) => p.n >= e.to);
      if (at >= 0) points.splice(at);
    }
  }
  return points;
}

/** The images the message `to` was sent with, read back from the session's folder (those still there). */
function imagesOf(dir: string, events: readonly JournalEvent[], to: number): UserImage[] {
  const event = events.find((e) => e.n === to);
  if (event?.type !== "user") return [];
  const images: UserImage[] = [];
  for (const file of event.images ?? []) {
    try {
      const data = readFileSync(join(dir, file)).toString("base64");
      images.push({ name: basename(file), mimeType: imageTypeOfFile(file), data });
    } catch {
      // Deleted since: the marker comes back without it, as one typed by hand would.
    }
  }
  return images;
}

/** The first checkpoint taken after event `to`: the files as they were when that message was sent. */
function checkpointAfter(events: readonly JournalEvent[], to: number): number | undefined {
  for (const e of events)
    if (e.n > to && e.type === "checkpoint" && e.commit !== undefined && e.turn > 0) return e.turn;
  return undefined;
}

/**
 * Goes back to before the person's message `to` (a `user` event's number): journaled first, then the
 * conversation replaced, then (if asked) the files restored from the checkpoint after that message.
 */
export async function rewind(
  agent: Agent,
  to: number,
  files: boolean,
): Promise<RewindResult | { error: string }> {
  if (agent.state.running) return { error: "the agent is working: interrupt it (Esc) before rewinding" };
  const { events } = readJournal(join(agent.dir, JOURNAL_FILE));
  const point = rewindPoints(events).find((p) => p.n === to);
  if (!point)
    return { error: `no message of yours numbered ${to} in this conversation (/rewind lists them)` };
  const note = rewindNote(files);
  agent.record({ type: "rewind", to, text: point.text, files, note });
  const before = conversationBefore(agent.dir, events, to, note);
  const conversation = agent.conversation;
  conversation.messages.splice(0, conversation.messages.length, ...before.messages);
  conversation.contextTokens = before.contextTokens;
  const images = imagesOf(agent.dir, events, to);
  const message = { to, text: point.text, ...(images.length > 0 ? { images } : {}) };
  if (!files) return message;
  const turn = checkpointAfter(events, to);
  if (turn === undefined)
    return { ...message, files: { none: "no code ran since that message: the files are as they were" } };
  const restored = await (agent.checkpoints?.undo(turn) ??
    Promise.resolve({ error: "file checkpoints belong to the root agent" }));
  if ("error" in restored) {
    agent.record({ type: "warning", message: `the files were not put back: ${restored.error}` });
    return { ...message, files: { none: restored.error } };
  }
  return {
    ...message,
    files: { turn: restored.turn, changed: restored.changed, removed: restored.removed },
  };
}
