// learning's slash commands, contributed to the one command table (src/commands/) by the composition
// root (src/cli/slash-commands.ts): /refine and /learn, answered by the session host's refine,
// refine.apply and learn methods, which learning attaches to the tree (src/learning/attach/).
import {
  type CommandContext,
  defineCommand,
  onHost,
  parseSwitch,
  type SlashCommand,
} from "../../commands/types.js";
import { isWritableScope, type WritableScope } from "../../config/harness-scopes.js";
import { costWord } from "../../config/money.js";
import type { LearnStatus } from "../../host/protocol.js";

/** One line about online refinement: its policy when on, and what its passes did and cost so far. */
function describeLearn(status: LearnStatus): string {
  const so = `${status.passes} pass(es), ${status.applied} edit(s) applied, ${status.spent.tokens} tokens, ${costWord(status.spent.cost)}`;
  const l = status.learn;
  if (!l) return `learning: off (${so})`;
  const when = [
    l.everyTurns > 0 ? `every ${l.everyTurns} model calls` : undefined,
    l.atCompaction ? "at compaction" : undefined,
    l.onGateFailure > 0 ? `after ${l.onGateFailure} identical gate failures` : undefined,
  ].filter(Boolean);
  return `learning: on — ${when.join(", ") || "no trigger set"}; edits go to the session scope and the agents read them before their next model request (${so})`;
}

const learn = defineCommand<"on" | "off" | "status">({
  name: "learn",
  args: "on | off | status",
  description: "review the work during the session and keep checked lessons",
  parse: (words) => parseSwitch(words, "/learn on | off | status"),
  act: async (ctx, mode) => {
    if (ctx.pending) {
      // Before the first message: remembered, and the session starts with it.
      if (mode !== "status") ctx.pending.learn = mode === "on";
      ctx.say(`learning: ${ctx.pending.learn ? "on" : "off"} (from the first message)`, "accent");
      return;
    }
    const status = await onHost(ctx, (call) => call("learn", { mode }));
    if (status) ctx.say(describeLearn(status), "accent");
  },
});

/** Proposes checked edits from this session's work, shows them, and applies them only when the person agrees. */
async function refine(ctx: CommandContext, scope: WritableScope): Promise<void> {
  if (ctx.pending) {
    ctx.say("nothing to refine yet: give the agent a task first", "dim");
    return;
  }
  ctx.say(`reviewing this session's work for lessons (${scope} scope)…`, "dim");
  const proposal = await onHost(ctx, (call) => call("refine", { scope }));
  if (!proposal) return;
  const lines = proposal.description.split("\n");
  if (proposal.accepted === 0) {
    await ctx.show("Refine: nothing to apply", lines);
    return;
  }
  await ctx.show(`Refine: ${proposal.accepted} checked edit(s)`, [
    ...lines,
    "",
    `Where it applies: ${proposal.appliesWhere}`,
  ]);
  if (!(await ctx.confirm(`Apply ${proposal.accepted} edit(s) to the ${scope} scope?`))) {
    ctx.say("not applied", "dim");
    return;
  }
  const applied = await ctx.call("refine.apply", { token: proposal.token });
  ctx.say(`${applied.applied ? "✓ " : ""}${applied.report.trim()}\n  ${applied.appliesWhere}`, "ok");
}

const REFINE_USAGE = "/refine [session|project|user]   (default session)";

export const LEARNING_COMMANDS: readonly SlashCommand[] = [
  defineCommand<WritableScope>({
    name: "refine",
    args: "[session|project|user]",
    description: "review this session's work and keep checked lessons",
    // Asks before it writes: only where a person can answer (not ACP).
    in: ["ui", "line"],
    parse: (words) => {
      const word = (words[0] ?? "session").replace(/^--scope=?/, "") || words[1] || "";
      return isWritableScope(word) ? { args: word } : { usage: REFINE_USAGE };
    },
    act: refine,
  }),
  learn,
];
