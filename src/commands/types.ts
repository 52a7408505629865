// What a slash command is, front-end neutral: its name, argument hint and help line, which front ends
// offer it, a parser of its arguments (a usage error is a value, not a throw), and what it does through
// a context each front end supplies — host calls over the typed protocol (src/host/protocol.ts), and
// replies as text. The terminal UI, ACP and line mode differ only in the context (docs/architecture.md).
import type { UserImage } from "../agent/core/user-images.js";
import type { PermissionMode } from "../config/permission-mode.js";
import type { HostCall } from "../host/protocol.js";

/** The front ends a command can be offered in: the terminal UI, ACP (editors) and line mode. */
export type FrontEnd = "ui" | "acp" | "line";

/** How a reply is painted where there is colour (the UI's theme); plain text everywhere else. */
type Tone = "plain" | "accent" | "warn" | "dim" | "ok" | "error";

/** How a front end paints each tone but plain (the UI's theme; line mode's ANSI codes, or none). */
export type Paint = Record<Exclude<Tone, "plain">, (text: string) => string>;

/** Chosen before the first message (UI, line mode): the session starts with them. */
export interface PendingStart {
  goal?: string;
  /** Autonomous mode's gates; null: off; undefined: as the flags say. */
  gates?: string[] | null;
  model?: string;
  learn?: boolean;
  /** The permission mode the session starts in (/mode, shift+tab before the first message). */
  mode?: PermissionMode;
}

/** One entry of a picker. */
interface PickItem {
  value: string;
  label: string;
  description?: string;
}

/** What a command may use of the front end that runs it. */
export interface CommandContext {
  /** The session host's methods, typed by name (src/host/protocol.ts). */
  readonly call: HostCall;
  /** Makes sure a host serves the session (an exited one is revived); false when there is none yet. */
  live(): Promise<boolean>;
  /** Present while the session has not started: what a command sets is kept and sent with the first message. */
  readonly pending?: PendingStart;
  /** The agent is working now. */
  readonly busy: boolean;
  /**
   * The front end shows the session's journal events (goal, compaction, undo lines), so a reply that
   * only repeats one is left out (ACP shows fewer of them: there, it is said).
   */
  readonly showsEvents: boolean;
  /** A reply to the person. */
  say(text: string, tone?: Tone): void;
  /** A longer text to read (the UI: a dialog; elsewhere: printed). */
  show(title: string, lines: string[]): Promise<void>;
  /** A yes/no question; only front ends where a person can answer one offer commands that ask. */
  confirm(question: string): Promise<boolean>;
  /** One of `items` (`text`: said above them), or undefined when the person backed out; absent where there is no picker. */
  pick?(title: string, items: PickItem[], text?: string): Promise<string | undefined>;
  /** Opens a file to read in a pager (the UI: $PAGER); absent where there is none. */
  page?(file: string): Promise<void>;
  /**
   * Puts text in the person's input to edit and send (the UI's editor); absent where there is none.
   * `images`: those its `[image #N …]` markers stand for, in their order, held again to go with it.
   */
  setInput?(text: string, images?: UserImage[]): void;
  /** The model to switch to, from a list (the UI's picker); absent where there is none. */
  chooseModel?(): Promise<string | undefined>;
}

/** A command's parsed arguments, or what its usage is. */
export type Parsed<A> = { args: A } | { usage: string };

/** A slash command as the table holds it (its arguments' type is the command's own business). */
export interface SlashCommand {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** What may follow the name (the palette, /help and ACP's input hint show it). */
  readonly args?: string;
  /** One line for the palette, /help and ACP's available_commands. */
  readonly description: string;
  /** The front ends that offer it (default: all). */
  readonly in?: readonly FrontEnd[];
  /**
   * Runs it with the words after its name (quotes removed). Absent: the front end does it itself — it
   * acts on that front end's own screen or process (help, quit, the UI's session pickers…).
   */
  readonly run?: (ctx: CommandContext, words: string[]) => Promise<void>;
}

/** A command with typed arguments: `parse` turns the words into them (or a usage line), `act` does it. */
interface CommandDefinition<A> extends Omit<SlashCommand, "run"> {
  parse(words: string[]): Parsed<A>;
  act(ctx: CommandContext, args: A): Promise<void>;
}

/** The table's entry for a definition: words parsed first, a usage error said as a warning. */
export function defineCommand<A>(definition: CommandDefinition<A>): SlashCommand {
  const { parse, act, ...entry } = definition;
  return {
    ...entry,
    run: async (ctx, words) => {
      const parsed = parse(words);
      if ("usage" in parsed) ctx.say(`usage: ${parsed.usage}`, "warn");
      else await act(ctx, parsed.args);
    },
  };
}

/** Calls the live host; says so and gives undefined when the session has not started. */
export async function onHost<R>(
  ctx: CommandContext,
  call: (c: HostCall) => Promise<R>,
): Promise<R | undefined> {
  if (!(await ctx.live())) {
    ctx.say("start the session with a first message first", "dim");
    return undefined;
  }
  return call(ctx.call);
}

/** on, off or status (status when nothing is given). */
export function parseSwitch(words: string[], usage: string): Parsed<"on" | "off" | "status"> {
  const mode = words[0] ?? "status";
  if (mode !== "on" && mode !== "off" && mode !== "status") return { usage };
  return { args: mode };
}
