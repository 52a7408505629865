// relm's slash commands in an editor: the ones that act on the session (published to the client as
// available commands) and what each asks of the session host. Names and descriptions are the terminal
// UI's (src/tui/slash-*.ts); test/acp/commands.test.ts keeps the two lists in step. The UI's commands
// about its own screen (help, expand, detach, quit, resume, attach…) have no meaning here.
import type { SessionInfo } from "../host/info.js";
import type { HostCall } from "../host/protocol.js";

export interface AcpCommand {
  name: string;
  description: string;
  /** What may follow the name (shown by the client while the input is empty). */
  hint?: string;
}

export const ACP_COMMANDS: readonly AcpCommand[] = [
  {
    name: "goal",
    description: "the objective restated at every continuation and after compaction",
    hint: '"OBJECTIVE"',
  },
  {
    name: "autonomous",
    description: "keep going until the gates pass (or done())",
    hint: 'on ["GATE" …] | off | status',
  },
  { name: "compact", description: "summarise the older turns now (the kernel keeps its variables)" },
  {
    name: "undo",
    description: "put the files back as before the last code-running turn",
    hint: "[TURN]",
  },
  {
    name: "model",
    description: "switch the model for the next turn (a list when no name)",
    hint: "[NAME]",
  },
  {
    name: "learn",
    description: "review the work during the session and keep checked lessons",
    hint: "on | off | status",
  },
  { name: "heartbeat", description: "re-enter this session on a schedule", hint: '10m "PROMPT" | off' },
  { name: "cost", description: "tokens, cost, context and budgets in detail" },
];

/** `/name args` when `name` is one of ACP_COMMANDS; anything else is a message for the model. */
export function parseCommand(text: string): { command: AcpCommand; args: string[] } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const command = ACP_COMMANDS.find((c) => c.name === match[1]?.toLowerCase());
  if (!command) return undefined;
  return { command, args: words(match[2] ?? "") };
}

/** Words as a shell splits them: quotes group, and are removed. */
export function words(text: string): string[] {
  const out: string[] = [];
  let current = "";
  let quote: string | undefined;
  let started = false;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started || current) out.push(current);
      current = "";
      started = false;
    } else {
      current += ch;
    }
  }
  if (started || current) out.push(current);
  return out;
}

export interface CommandEffects {
  call: HostCall;
  /** Autonomous mode was switched (so the client's mode selector can follow). */
  autonomy(on: boolean): void;
}

function money(usd: number | null): string {
  if (usd === null) return "unpriced";
  return usd < 0.01 && usd > 0 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

function costText(info: SessionInfo): string {
  const lines = [
    `tokens: ${info.tokens.toLocaleString("en-US")} (input ${info.usage.input.toLocaleString("en-US")}, output ${info.usage.output.toLocaleString("en-US")}, cached ${info.usage.cached.toLocaleString("en-US")})`,
    `cost: ${money(info.cost)}`,
    `context: ${info.contextTokens.toLocaleString("en-US")} of ${info.contextWindow.toLocaleString("en-US")} tokens (compacts at ${Math.round(info.compactAt * 100)}%)`,
    `model: ${info.model} (${info.provider})`,
  ];
  const limits = Object.entries(info.limits).filter(([, v]) => v !== undefined);
  if (limits.length > 0) lines.push(`budgets: ${limits.map(([k, v]) => `${k} ${v}`).join(", ")}`);
  return lines.join("\n");
}

/** Runs one command; resolves to what the person is told. */
export async function runCommand(name: string, args: string[], fx: CommandEffects): Promise<string> {
  switch (name) {
    case "goal": {
      const text = args.join(" ").trim();
      const r = await fx.call("goal", text ? { text } : {});
      if (!r.goal) return 'no goal set: /goal "OBJECTIVE"';
      return `goal${r.done ? " (done)" : ""}: ${r.goal}`;
    }
    case "autonomous": {
      const [mode = "status", ...gates] = args;
      if (mode !== "on" && mode !== "off" && mode !== "status")
        return 'usage: /autonomous on ["GATE" …] | off | status';
      const r = await fx.call("autonomy", mode === "on" ? { mode, gates } : { mode });
      if (mode !== "status") fx.autonomy(r.autonomy !== null);
      if (!r.autonomy) return "autonomous mode is off";
      const g = r.autonomy.gates;
      return `autonomous mode is on${g.length > 0 ? `; gates: ${g.join("; ")}` : " (until done())"}`;
    }
    case "compact":
      return (await fx.call("compact", {})).message;
    case "undo": {
      const turn = args[0] === undefined ? undefined : Number(args[0]);
      if (turn !== undefined && !Number.isInteger(turn)) return "usage: /undo [TURN]";
      const r = await fx.call("undo", turn === undefined ? {} : { turn });
      if ("error" in r) return r.error;
      const { changed, removed } = r;
      return `files put back as before turn ${r.turn}: ${changed.length} restored, ${removed.length} removed${
        changed.length + removed.length > 0
          ? `\n${[...changed, ...removed.map((f) => `${f} (removed)`)].join("\n")}`
          : ""
      }`;
    }
    case "model": {
      const r = await fx.call("model", args[0] ? { name: args[0] } : {});
      return `${args[0] ? "model switched to" : "model:"} ${r.model} (${r.provider})`;
    }
    case "learn": {
      const mode = args[0] ?? "status";
      if (mode !== "on" && mode !== "off" && mode !== "status") return "usage: /learn on | off | status";
      const r = await fx.call("learn", { mode });
      return `learning is ${r.learn ? "on" : "off"}: ${r.passes} pass(es), ${r.applied} edit(s) applied`;
    }
    case "heartbeat": {
      if (args[0] === "off") {
        const r = await fx.call("heartbeat", { off: true });
        return `cancelled ${r.cancelled ?? 0} heartbeat job(s)`;
      }
      const [every, ...rest] = args;
      const prompt = rest.join(" ").trim();
      if (!every || !prompt) return 'usage: /heartbeat 10m "PROMPT" | off';
      const r = await fx.call("heartbeat", { every, prompt });
      return r.job
        ? `heartbeat ${r.job.id}: ${r.job.timing}; /heartbeat off cancels it`
        : "no heartbeat added";
    }
    case "cost":
      return costText(await fx.call("info", {}));
    default:
      return `unknown command /${name}`;
  }
}
