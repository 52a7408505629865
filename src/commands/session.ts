// Slash commands about the session itself: the model, the spend, and the commands a front end does on
// its own screen or process (help, quit, the UI's pickers and panels), which share only their entry here.

import { costWord } from "../config/money.js";
import type { SessionInfo } from "../host/info.js";
import { modeCommand } from "./mode.js";
import { defineCommand, onHost, type SlashCommand } from "./types.js";

const model = defineCommand<{ name?: string }>({
  name: "model",
  args: "[NAME]",
  description: "switch the model for the next turn (a list when no name)",
  parse: ([name]) => ({ args: name ? { name } : {} }),
  act: async (ctx, args) => {
    const name = args.name ?? (await ctx.chooseModel?.());
    if (!args.name && ctx.chooseModel && !name) return; // the person backed out of the list
    if (ctx.pending) {
      if (name) ctx.pending.model = name;
      ctx.say(
        name
          ? `⇄ model: ${name} (the session starts with it)`
          : "model: as configured (/model NAME chooses one)",
        "accent",
      );
      return;
    }
    const result = await onHost(ctx, (call) => call("model", name ? { name } : {}));
    if (!result) return;
    ctx.say(
      name ? `⇄ model for the next turn: ${result.model}` : `model: ${result.model} (${result.provider})`,
      "accent",
    );
  },
});

/** The session's spend, context and budgets, as lines. */
function costLines(info: SessionInfo): string[] {
  const n = (x: number) => x.toLocaleString("en-US");
  const lines = [
    `tokens: ${n(info.tokens)} (input ${n(info.usage.input)}, output ${n(info.usage.output)}, cached ${n(info.usage.cached)})`,
    `cost: ${costWord(info.cost)}`,
    `context: ${n(info.contextTokens)} of ${n(info.contextWindow)} tokens (compacts at ${Math.round(info.compactAt * 100)}%)`,
    `model: ${info.model} (${info.provider})`,
  ];
  const limits = Object.entries(info.limits).filter(([, v]) => v !== undefined);
  if (limits.length > 0) lines.push(`budgets: ${limits.map(([k, v]) => `${k} ${v}`).join(", ")}`);
  return lines;
}

const cost = defineCommand<null>({
  name: "cost",
  description: "tokens, cost, context and budgets in detail",
  parse: () => ({ args: null }),
  act: async (ctx) => {
    const info = await onHost(ctx, (call) => call("info"));
    if (info) await ctx.show("Spend", costLines(info));
  },
});

/** Commands of the terminal UI's own screen and sessions (without `run`: the UI does them itself). */
const ui = (name: string, description: string, args?: string): SlashCommand => ({
  name,
  description,
  ...(args ? { args } : {}),
  in: ["ui"],
});

export const SESSION_COMMANDS: readonly SlashCommand[] = [
  { name: "help", description: "commands and keys", in: ["ui", "line"] },
  ui("login", "choose the provider, key and model (saved 0600)"),
  ui("search-setup", "choose the web search provider and key for search() (saved 0600)"),
  model,
  modeCommand,
  ui("resume", "open a saved session of this directory", "[ID]"),
  ui("new", "start a new session (this one is saved)"),
  ui("clear", "clear the screen and start a new session"),
  ui("attach", "open another session (running or saved) by id or prefix", "ID"),
  ui("detach", "leave; the session keeps running in the background (also ctrl+b)"),
  {
    name: "quit",
    aliases: ["exit"],
    description: "stop the session and leave (also ctrl+d; /exit)",
    in: ["ui", "line"],
  },
  ui("export", "write the session to a file", "[md|html|ipynb|jsonl] [FILE]"),
  cost,
  ui("agents", "select a sub-agent: open its transcript, message or cancel it"),
  ui("expand", "show cell outputs in full (ctrl+o toggles)", "[on|off]"),
  ui("copy", "put the last answer on the clipboard (through the terminal: OSC 52)"),
  ui("web", "the address of relm web for this session (starts the server, or reuses it)"),
  ui("theme", "colours for a dark or light terminal, or high contrast (saved)", "[dark|light|high-contrast]"),
];
