// Slash commands that steer the work: goal, autonomy, compaction, undo, refine, heartbeats.
import { SCOPES, type Scope } from "../config/harness-scopes.js";
import type { HostMethod, ParamsArg, ResultOf } from "../host/protocol.js";
import type { AppApi, CommandSpec } from "./app-api.js";
import { confirm, pickFrom, showText } from "./dialogs.js";
import { ago, money } from "./format.js";

/** Runs a host method, reviving an exited session first; says so when there is no session yet. */
async function onHost<M extends HostMethod>(
  api: AppApi,
  method: M,
  ...params: ParamsArg<M>
): Promise<ResultOf<M> | undefined> {
  if (!(await api.ensureLive())) {
    api.note(api.theme.dim("start the session with a first message first"));
    return undefined;
  }
  return api.link.call(method, ...params);
}

const isSwitch = (mode: string): mode is "on" | "off" | "status" => ["on", "off", "status"].includes(mode);
const isScope = (scope: string): scope is Scope => (SCOPES as readonly string[]).includes(scope);

async function goal(api: AppApi, args: string[]): Promise<void> {
  const text = args.join(" ").trim();
  if (!api.link.id) {
    if (!text) {
      api.note(
        api.pending.goal
          ? `goal (set when the session starts): ${api.pending.goal}`
          : 'no goal: /goal "objective" sets one',
      );
      return;
    }
    api.pending.goal = text;
    api.note(api.theme.accent(`◎ goal: ${text} (set when the session starts)`));
    return;
  }
  const result = await onHost(api, "goal", text ? { text } : {});
  if (!result) return;
  if (!text) api.note(result.goal ? `◎ goal: ${result.goal}` : 'no goal: /goal "objective" sets one');
  api.refreshInfo();
}

async function autonomous(api: AppApi, args: string[]): Promise<void> {
  const [mode = "status", ...gates] = args;
  if (!isSwitch(mode)) {
    api.note(api.theme.warn('usage: /autonomous on ["gate command" …] | off | status'));
    return;
  }
  const describe = (a: { gates: string[] } | null | undefined) =>
    a
      ? a.gates.length > 0
        ? `autonomous: on — done when ${a.gates.map((g) => `\`${g}\``).join(", ")} exit 0`
        : "autonomous: on — continues until done() is called or a budget is spent"
      : "autonomous: off";
  if (!api.link.id) {
    if (mode === "on") api.pending.gates = gates;
    if (mode === "off") api.pending.gates = null;
    api.note(
      api.theme.accent(
        `${describe(api.pending.gates ? { gates: api.pending.gates } : null)}${mode === "status" ? "" : " (from the first message)"}`,
      ),
    );
    api.tui.requestRender();
    return;
  }
  const result = await onHost(api, "autonomy", { mode, gates });
  if (!result) return;
  api.note(api.theme.accent(describe(result.autonomy)));
  api.refreshInfo();
}

async function undo(api: AppApi, args: string[]): Promise<void> {
  let turn: number | undefined;
  if (args[0] === "pick" || args[0] === "list") {
    const listed = await onHost(api, "checkpoints", {});
    if (!listed) return;
    if (listed.checkpoints.length === 0) {
      api.note(api.theme.dim("no checkpoints yet: they are taken before each turn that runs code"));
      return;
    }
    const picked = await pickFrom(api.dialogs, {
      title: "Put the files back as they were before…",
      items: listed.checkpoints.map((c) => ({
        value: String(c.turn),
        label: `turn ${c.turn}`,
        description: `${ago(c.time)} · ${c.filesChanged} file(s) changed since the previous${c.restored ? " · restored before" : ""}`,
      })),
      filterable: false,
    });
    if (!picked) return;
    turn = Number(picked);
  } else if (args[0] !== undefined) {
    turn = Number(args[0]);
    if (!Number.isInteger(turn) || turn <= 0) {
      api.note(
        api.theme.warn(
          "usage: /undo [TURN | pick]   (no argument: one code-running turn further back each time)",
        ),
      );
      return;
    }
  }
  if (api.busy) {
    api.note(api.theme.warn("the agent is working: interrupt it (esc) before putting files back"));
    return;
  }
  const result = await onHost(api, "undo", turn === undefined ? {} : { turn });
  if (!result) return;
  // Success is said by the session's `undo` event, which the transcript shows (once, with the files).
  if ("error" in result) api.note(api.theme.warn(result.error));
}

async function refine(api: AppApi, args: string[]): Promise<void> {
  const scope = args[0] ?? "session";
  if (!isScope(scope)) {
    api.note(api.theme.warn("usage: /refine [session|project|user]   (default session)"));
    return;
  }
  api.note(api.theme.dim(`reviewing this session's work for lessons (${scope} scope)…`));
  const proposal = await onHost(api, "refine", { scope });
  if (!proposal) return;
  if (proposal.accepted === 0) {
    await showText(api.dialogs, "Refine: nothing to apply", () => proposal.description.split("\n"));
    return;
  }
  await showText(api.dialogs, `Refine: ${proposal.accepted} checked edit(s)`, () => [
    ...proposal.description.split("\n"),
    "",
    `Where it applies: ${proposal.appliesWhere}`,
  ]);
  if (
    !(await confirm(
      api.dialogs,
      "Apply?",
      `Apply ${proposal.accepted} edit(s) to the ${scope} scope? ${proposal.appliesWhere}`,
    ))
  ) {
    api.note(api.theme.dim("not applied"));
    return;
  }
  const applied = await api.link.call("refine.apply", { token: proposal.token });
  api.note(api.theme.ok(`✓ ${applied.report.trim()}\n  ${applied.appliesWhere}`));
}

/** `/learn on|off|status`: online refinement through the host's `learn` method. */
async function learn(api: AppApi, args: string[]): Promise<void> {
  const mode = args[0] ?? "status";
  if (!isSwitch(mode)) {
    api.note(api.theme.warn("usage: /learn on | off | status"));
    return;
  }
  if (!api.link.id) {
    // Before the first message: remembered, and the session starts with it.
    if (mode !== "status") api.pending.learn = mode === "on";
    api.note(
      api.theme.accent(
        `learning: ${api.pending.learn ? "on" : "off"}${mode === "status" ? "" : " (from the first message)"}`,
      ),
    );
    return;
  }
  const result = await onHost(api, "learn", { mode });
  if (!result) return;
  const cost = result.spent.cost === null ? "unpriced" : money(result.spent.cost);
  const so = `${result.passes} pass(es), ${result.applied} edit(s) applied, ${result.spent.tokens} tokens, ${cost}`;
  const l = result.learn;
  const when = l
    ? [
        l.everyTurns > 0 ? `every ${l.everyTurns} model calls` : "",
        l.atCompaction ? "at compaction" : "",
        l.onGateFailure > 0 ? `after ${l.onGateFailure} identical gate failures` : "",
      ].filter(Boolean)
    : [];
  api.note(
    api.theme.accent(
      l
        ? `learning: on — ${when.join(", ") || "no trigger set"}; lessons apply from the next model request (${so})`
        : `learning: off (${so})`,
    ),
  );
}

async function heartbeat(api: AppApi, args: string[]): Promise<void> {
  if (args[0] === "off") {
    const result = await onHost(api, "heartbeat", { off: true });
    if (result) api.note(`cancelled ${result.cancelled ?? 0} heartbeat(s)`);
    return;
  }
  if (args.length < 2) {
    const result = await onHost(api, "heartbeat", {});
    if (!result) return;
    api.note(
      result.jobs.length === 0
        ? 'no heartbeats: /heartbeat 10m "what to do at each beat"'
        : result.jobs.map((j) => `♥ ${j.id}: ${j.timing} — ${j.prompt}`).join("\n"),
    );
    return;
  }
  const [every, ...words] = args;
  const result = await onHost(api, "heartbeat", {
    every,
    prompt: words.join(" "),
  });
  if (result?.job)
    api.note(
      api.theme.accent(`♥ heartbeat ${result.job.id}: ${result.job.timing}; /heartbeat off cancels it`),
    );
}

export function workCommands(): CommandSpec[] {
  return [
    {
      name: "goal",
      args: '"OBJECTIVE"',
      description: "the objective restated at every continuation and after compaction",
      run: goal,
    },
    {
      name: "autonomous",
      args: 'on ["GATE" …] | off | status',
      description: "keep going until the gates pass (or done())",
      run: autonomous,
    },
    {
      name: "compact",
      description: "summarise the older turns now (the kernel keeps its variables)",
      run: async (api) => {
        const result = await onHost(api, "compact", {});
        // A compaction that happened is shown once, by its journal event's line in the transcript.
        if (result && !result.compacted) api.note(api.theme.dim(result.message));
      },
    },
    {
      name: "undo",
      args: "[TURN | pick]",
      description: "put the files back as before the last code-running turn",
      run: undo,
    },
    {
      name: "refine",
      args: "[session|project|user]",
      description: "review this session's work and keep checked lessons",
      run: refine,
    },
    {
      name: "learn",
      args: "on | off | status",
      description: "review the work during the session and keep checked lessons",
      run: learn,
    },
    {
      name: "heartbeat",
      args: '10m "PROMPT" | off',
      description: "re-enter this session on a schedule",
      run: heartbeat,
    },
  ];
}
