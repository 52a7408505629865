// Line mode's side of the slash command table (src/commands/): replies are printed, a question is
// answered on the next input line, and every command reaches the session through its host's methods —
// the host line mode runs in this process, called as a front end calls it over its socket.
import { commandsFor, helpRows } from "../commands/table.js";
import type { CommandContext, PendingStart, SlashCommand } from "../commands/types.js";
import type { SessionSpec } from "../config/options.js";
import type { SessionHost } from "../host/host.js";
import type { HostCall } from "../host/protocol.js";

/** Line mode's /help: the table's commands for line mode, and its keys. */
export function lineHelp(commands: readonly SlashCommand[] = commandsFor("line")): string {
  const rows = helpRows(commands);
  const width = Math.min(34, Math.max(...rows.map(([term]) => term.length)));
  return [
    "Type a task and press Enter; end a line with \\ to continue it on the next line.",
    ...rows.map(([term, description]) => `  ${term.padEnd(width)}  ${description}`),
    "Ctrl-C while the agent works interrupts the running cell or model call; Ctrl-C twice or Ctrl-D leaves.",
  ].join("\n");
}

interface LineContextOptions {
  out: NodeJS.WritableStream;
  /** The session's host once the first message started it. */
  host(): SessionHost | undefined;
  /** What /goal, /autonomous, /model and /learn keep before the first message. */
  pending: PendingStart;
  /** The next line typed (undefined at the end of input). */
  nextLine(): Promise<string | undefined>;
}

export function lineContext(options: LineContextOptions): CommandContext {
  const { out, host } = options;
  const call: HostCall = (method, ...params) => {
    const h = host();
    return h
      ? h.call(method, ...params)
      : Promise.reject(new Error("start the session with a first message first"));
  };
  return {
    call,
    live: async () => host() !== undefined,
    get pending() {
      return host() ? undefined : options.pending;
    },
    get busy() {
      return host()?.busy ?? false;
    },
    showsEvents: true,
    say: (text) => out.write(`${text}\n`),
    show: async (_title, lines) => {
      out.write(`${lines.join("\n")}\n`);
    },
    confirm: async (question) => {
      out.write(`${question} [y/N] `);
      return /^y(es)?$/i.test(((await options.nextLine()) ?? "").trim());
    },
  };
}

/** The session's flags with a mode chosen before the first message (it replaces --mode and --sandbox). */
export function withPendingMode<F extends SessionSpec>(flags: F, pending: PendingStart): F {
  if (!pending.mode) return flags;
  const out = { ...flags, mode: pending.mode };
  delete out.sandbox;
  return out;
}

/**
 * Choices made before the first message (/goal, /autonomous, /model, /learn), given to the session once
 * its host serves it — through the same host methods the commands call afterwards.
 */
export async function applyPending(call: HostCall, pending: PendingStart): Promise<void> {
  // The mode is not among them: it is a start flag of the session (interactive.ts withPendingMode).
  const { goal, gates, model, learn } = pending;
  for (const key of Object.keys(pending)) delete pending[key as keyof PendingStart];
  if (model) await call("model", { name: model });
  if (goal) await call("goal", { text: goal });
  if (gates) await call("autonomy", { mode: "on", gates });
  if (learn !== undefined) await call("learn", { mode: learn ? "on" : "off" });
}
