// Slash commands that steer the work, in every front end: goal, autonomy, compaction, undo, heartbeats.
// Each sends one host method (src/host/protocol.ts) and says what it answered.

import { UsageError } from "../config/errors.js";
import { checkGoal } from "../config/option-values.js";
import type { HeartbeatJob, ResultOf } from "../host/protocol.js";
import { diffCommand } from "./diff.js";
import { ago } from "./format.js";
import { rewindCommand } from "./rewind.js";
import {
  type CommandContext,
  defineCommand,
  onHost,
  type Parsed,
  parseSwitch,
  type SlashCommand,
} from "./types.js";

const goal = defineCommand<{ text: string }>({
  name: "goal",
  args: '"OBJECTIVE"',
  description: "the objective restated at every continuation and after compaction",
  parse: (words) => ({ args: { text: words.join(" ").trim() } }),
  act: async (ctx, { text }) => {
    const tooLong = goalProblem(text);
    if (tooLong) {
      ctx.say(tooLong, "warn");
      return;
    }
    if (ctx.pending) {
      if (text) ctx.pending.goal = text;
      const kept = ctx.pending.goal;
      if (!kept) ctx.say('no goal: /goal "OBJECTIVE" sets one');
      else if (text) ctx.say(`◎ goal: ${kept} (set when the session starts)`, "accent");
      else ctx.say(`goal (set when the session starts): ${kept}`);
      return;
    }
    const result = await onHost(ctx, (call) => call("goal", text ? { text } : {}));
    if (!result) return;
    // A goal set is shown by its journal event's line where front ends show those.
    if (text && ctx.showsEvents) return;
    ctx.say(
      result.goal
        ? `◎ goal${result.done ? " (done)" : ""}: ${result.goal}`
        : 'no goal: /goal "OBJECTIVE" sets one',
      "accent",
    );
  },
});

/** Why `/goal TEXT` is refused (over the limit --goal has too), or undefined. */
function goalProblem(text: string): string | undefined {
  try {
    checkGoal(text, "/goal");
    return undefined;
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
}

/** What autonomous mode is set to, in one line. */
function describeAutonomy(autonomy: { gates: string[] } | null | undefined): string {
  if (!autonomy) return "autonomous: off";
  return autonomy.gates.length > 0
    ? `autonomous: on — done when ${autonomy.gates.map((g) => `\`${g}\``).join(", ")} exit 0`
    : "autonomous: on — continues until done() is called or a budget is spent";
}

const AUTONOMOUS_USAGE = '/autonomous on ["GATE" …] | off | status';

const autonomous = defineCommand<{ mode: "on" | "off" | "status"; gates: string[] }>({
  name: "autonomous",
  args: 'on ["GATE" …] | off | status',
  description: "keep going until the gates pass (or done())",
  parse: (words) => {
    const mode = parseSwitch(words, AUTONOMOUS_USAGE);
    return "usage" in mode ? mode : { args: { mode: mode.args, gates: words.slice(1) } };
  },
  act: async (ctx, { mode, gates }) => {
    if (ctx.pending) {
      if (mode === "on") ctx.pending.gates = gates;
      if (mode === "off") ctx.pending.gates = null;
      const kept = ctx.pending.gates ? { gates: ctx.pending.gates } : null;
      ctx.say(`${describeAutonomy(kept)}${mode === "status" ? "" : " (from the first message)"}`, "accent");
      return;
    }
    const result = await onHost(ctx, (call) => call("autonomy", mode === "on" ? { mode, gates } : { mode }));
    if (result) ctx.say(describeAutonomy(result.autonomy), "accent");
  },
});

const compact = defineCommand<null>({
  name: "compact",
  description: "summarise the older turns now (the kernel keeps its variables)",
  parse: () => ({ args: null }),
  act: async (ctx) => {
    const result = await onHost(ctx, (call) => call("compact", {}));
    // A compaction that happened, or failed, is shown by its journal event's line where front ends show those.
    const shown = result && (result.compacted || result.journaled) && ctx.showsEvents;
    if (result && !shown) ctx.say(result.message, "dim");
  },
});

const UNDO_USAGE = "/undo [TURN | pick]   (no argument: one code-running turn further back each time)";

/** What an undo put back, for a front end that does not show the undo event. */
function describeUndo(r: Exclude<ResultOf<"undo">, { error: string }>): string {
  const { changed, removed } = r;
  const files = [...changed, ...removed.map((f) => `${f} (removed)`)];
  return `files put back as before turn ${r.turn}: ${changed.length} restored, ${removed.length} removed${
    files.length > 0 ? `\n${files.join("\n")}` : ""
  }`;
}

/** The turn to go back to, picked from the checkpoints (or listed where there is no picker). */
async function pickTurn(ctx: CommandContext): Promise<number | undefined> {
  const listed = await onHost(ctx, (call) => call("checkpoints", {}));
  if (!listed) return undefined;
  if (listed.checkpoints.length === 0) {
    ctx.say(
      listed.unavailable ?? "no checkpoints yet: they are taken before each turn that runs code",
      "dim",
    );
    return undefined;
  }
  const items = listed.checkpoints.map((c) => ({
    value: String(c.turn),
    label: `turn ${c.turn}`,
    description: `${ago(c.time)} · ${c.filesChanged} file(s) changed since the previous${c.restored ? " · restored before" : ""}`,
  }));
  if (!ctx.pick) {
    ctx.say(
      [...items.map((i) => `${i.label}  ${i.description}`), "/undo TURN puts the files back"].join("\n"),
    );
    return undefined;
  }
  const picked = await ctx.pick("Put the files back as they were before…", items);
  return picked === undefined ? undefined : Number(picked);
}

const undo = defineCommand<{ turn?: number; pick: boolean }>({
  name: "undo",
  args: "[TURN | pick]",
  description: "put the files back as before the last code-running turn",
  parse: (words) => {
    const [word] = words;
    if (word === undefined) return { args: { pick: false } };
    if (word === "pick" || word === "list") return { args: { pick: true } };
    const turn = Number(word);
    return Number.isInteger(turn) && turn > 0 ? { args: { turn, pick: false } } : { usage: UNDO_USAGE };
  },
  act: async (ctx, args) => {
    const turn = args.pick ? await pickTurn(ctx) : args.turn;
    if (args.pick && turn === undefined) return;
    if (ctx.busy) {
      ctx.say("the agent is working: interrupt it before putting files back", "warn");
      return;
    }
    const result = await onHost(ctx, (call) => call("undo", turn === undefined ? {} : { turn }));
    if (!result) return;
    if ("error" in result) ctx.say(result.error, "warn");
    // Done, it is said by the session's undo event (with the files) where front ends show those.
    else if (!ctx.showsEvents) ctx.say(describeUndo(result), "ok");
  },
});

type HeartbeatArgs = { off: true } | { list: true } | { every: string; prompt: string };
const HEARTBEAT_USAGE = '/heartbeat 10m "what to do at each beat" | off   (no argument: lists them)';

function parseHeartbeat(words: string[]): Parsed<HeartbeatArgs> {
  if (words.length === 0) return { args: { list: true } };
  if (words.length === 1 && words[0] === "off") return { args: { off: true } };
  const [every = "", ...rest] = words;
  const prompt = rest.join(" ").trim();
  return prompt ? { args: { every, prompt } } : { usage: HEARTBEAT_USAGE };
}

const listJobs = (jobs: HeartbeatJob[]) =>
  jobs.length === 0
    ? 'no heartbeats: /heartbeat 10m "what to do at each beat"'
    : jobs.map((j) => `♥ ${j.id}: ${j.timing} — ${j.prompt}`).join("\n");

const heartbeat = defineCommand<HeartbeatArgs>({
  name: "heartbeat",
  args: '10m "PROMPT" | off',
  description: "re-enter this session on a schedule",
  parse: parseHeartbeat,
  act: async (ctx, args) => {
    const result = await onHost(ctx, (call) => call("heartbeat", "list" in args ? {} : args));
    if (!result) return;
    if ("off" in args) ctx.say(`cancelled ${result.cancelled ?? 0} heartbeat(s)`);
    else if (result.job)
      ctx.say(`♥ heartbeat ${result.job.id}: ${result.job.timing}; /heartbeat off cancels it`, "accent");
    else ctx.say(listJobs(result.jobs));
  },
});

export const WORK_COMMANDS: readonly SlashCommand[] = [
  goal,
  autonomous,
  compact,
  undo,
  rewindCommand,
  diffCommand,
  heartbeat,
];
