// /rewind: the conversation back to before one of the person's earlier messages, and the files too if
// they choose (Claude Code's /rewind, pi's /tree). The host does it (rewind.points, rewind), journaled,
// so every attached view and a resume show the rewound conversation. The kernel cannot go back: the
// question says so, and the model is told with its next request.

import type { RewindPoint } from "../agent/core/rewind.js";
import { firstLine } from "../config/text.js";
import type { ResultOf } from "../host/protocol.js";
import { ago } from "./format.js";
import { type CommandContext, defineCommand, onHost } from "./types.js";

const REWIND_USAGE = "/rewind [N [files]]   (N: the message, 1 the first; files: put the files back too)";
const KERNEL_STAYS =
  "The kernel's variables cannot go back: they keep what the later turns set (the model is told so).";

interface RewindArgs {
  /** 1 is the conversation's first message still in it; absent: pick one. */
  index?: number;
  /** Put the files back too; absent: ask (where one can), else no. */
  files?: boolean;
}

function parse(words: string[]): { args: RewindArgs } | { usage: string } {
  const [first, second] = words;
  if (first === undefined) return { args: {} };
  const index = Number(first);
  if (!Number.isInteger(index) || index < 1 || words.length > 2) return { usage: REWIND_USAGE };
  if (second === undefined) return { args: { index } };
  if (second === "files") return { args: { index, files: true } };
  if (second === "conversation") return { args: { index, files: false } };
  return { usage: REWIND_USAGE };
}

/** One line for a message in a list or picker. */
const shortText = (p: RewindPoint) => firstLine(p.text.replace(/\s+/g, " "), 70);

/** The message to go back to: the picker (newest first), or the list where there is none. */
async function pickPoint(ctx: CommandContext, points: RewindPoint[]): Promise<RewindPoint | undefined> {
  if (!ctx.pick) {
    ctx.say(
      [
        ...points.map((p, i) => `${i + 1}. ${shortText(p)}  (${ago(p.t)})`),
        "/rewind N goes back to before message N (/rewind N files: the files too)",
      ].join("\n"),
    );
    return undefined;
  }
  const items = points
    .map((p, i) => ({ value: String(i), label: shortText(p), description: ago(p.t) }))
    .reverse();
  const picked = await ctx.pick("Rewind to before which message?", items);
  return picked === undefined ? undefined : points[Number(picked)];
}

/** Conversation only, or the files too; undefined: cancelled. */
async function askFiles(ctx: CommandContext, point: RewindPoint): Promise<boolean | undefined> {
  if (!ctx.pick) return false;
  const choice = await ctx.pick(
    `Rewind to before “${shortText(point)}”`,
    [
      { value: "conversation", label: "conversation only", description: "the files stay as they are now" },
      {
        value: "files",
        label: "conversation and files",
        description: "the files go back to how they were when you sent it",
      },
      { value: "cancel", label: "cancel" },
    ],
    KERNEL_STAYS,
  );
  if (choice === undefined || choice === "cancel") return undefined;
  return choice === "files";
}

/** What the files did, where the front end does not show the session's undo event. */
function describeFiles(files: Exclude<ResultOf<"rewind">, { error: string }>["files"]): string | undefined {
  if (!files) return undefined;
  if ("none" in files) return `files not put back: ${files.none}`;
  return `files put back as before turn ${files.turn}: ${files.changed.length} restored, ${files.removed.length} removed`;
}

export const rewindCommand = defineCommand<RewindArgs>({
  name: "rewind",
  args: "[N [files]]",
  description: "go back to before one of your messages (and the files, if you choose); Esc Esc in the UI",
  parse,
  act: async (ctx, args) => {
    if (ctx.busy) {
      ctx.say("the agent is working: interrupt it (Esc) before rewinding", "warn");
      return;
    }
    const listed = await onHost(ctx, (call) => call("rewind.points", {}));
    if (!listed) return;
    const { points } = listed;
    if (points.length === 0) {
      ctx.say("nothing to rewind to yet: send a message first", "dim");
      return;
    }
    if (args.index !== undefined && args.index > points.length) {
      ctx.say(`there are ${points.length} message(s) to go back to: /rewind lists them`, "warn");
      return;
    }
    const point = args.index !== undefined ? points[args.index - 1] : await pickPoint(ctx, points);
    if (!point) return;
    const files = args.files ?? (await askFiles(ctx, point));
    if (files === undefined) return;
    const result = await ctx.call("rewind", { to: point.n, files });
    if ("error" in result) {
      ctx.say(result.error, "warn");
      return;
    }
    // The UI puts the message back in the input to edit; elsewhere it is said, to copy.
    if (ctx.setInput) ctx.setInput(result.text, result.images);
    else ctx.say(`rewound to before your message:\n${result.text}`, "ok");
    const filesLine = describeFiles(result.files);
    if (filesLine && (!ctx.showsEvents || "none" in (result.files ?? {})))
      ctx.say(filesLine, "none" in (result.files ?? {}) ? "dim" : "ok");
  },
});
