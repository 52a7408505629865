// Which front end a command line gets: the full-screen UI (src/tui, loaded only here and only when
// chosen), the line mode of src/cli/interactive.ts, or a one-shot run. The decision is a pure function
// of the arguments and the terminal, so it is unit-tested without a terminal; the table is in docs/cli.md.

import { UsageError } from "../config/errors.js";
import type { SessionSpec } from "../config/options.js";
import type { TuiStart } from "../tui/main.js";
import type { RunIo } from "./run.js";

/** What the process is connected to. */
export interface Terminal {
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  /** $TERM; "dumb" (Emacs shells, some CI) cannot draw a full-screen UI. */
  term?: string;
  /** RELM_NO_TUI=1: the person prefers line mode. */
  noTui?: boolean;
}

export function terminalOf(io: { stdout: NodeJS.WritableStream; env: NodeJS.ProcessEnv }): Terminal {
  return {
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean((io.stdout as NodeJS.WriteStream).isTTY),
    term: io.env.TERM,
    noTui: Boolean(io.env.RELM_NO_TUI) && io.env.RELM_NO_TUI !== "0",
  };
}

/** Both ends a terminal that can draw, and the person did not ask for line mode. */
export function uiAvailable(t: Terminal): boolean {
  return t.stdinIsTTY && t.stdoutIsTTY && t.term !== "dumb" && !t.noTui;
}

/** How `relm` itself (no command) was called. */
interface RootCall {
  /** The words after the options: a first message. */
  words: string[];
  /** `--continue` / `-c`. */
  continueLast?: boolean;
  /** `--resume [id]` / `-r [id]`: an id, or true for "let me pick". */
  resume?: string | true;
}

/** Line mode's start: a first message, and the session to continue (a new one when neither is set). */
export interface LineStart {
  task?: string;
  resumeId?: string;
  continueLast?: boolean;
}

type FrontEnd =
  | { kind: "tui"; start: TuiStart }
  | { kind: "line"; start: LineStart }
  | { kind: "run"; task: string };

/**
 * `relm [--continue | --resume [ID]] [words]`: the UI when it can be drawn; otherwise line mode, or
 * for `relm "task"` without a terminal at both ends, a one-shot run (like `relm run "task"`).
 */
export function chooseRootFrontEnd(call: RootCall, t: Terminal): FrontEnd {
  const text = taskOf(call.words);
  if (call.continueLast && call.resume !== undefined)
    throw new UsageError("give either --continue or --resume, not both");
  const ui = uiAvailable(t);
  if (call.resume === true) {
    if (ui) return { kind: "tui", start: { pickSession: true } };
    throw new UsageError(
      "--resume without an id opens a picker, which needs a terminal; give the id " +
        '(relm agents lists them): relm --resume ID, or relm run --resume ID "message"',
    );
  }
  if (typeof call.resume === "string") {
    if (ui) return { kind: "tui", start: withMessage({ sessionId: call.resume }, text) };
    return { kind: "line", start: { resumeId: call.resume, task: text } };
  }
  if (call.continueLast) {
    if (ui) return { kind: "tui", start: withMessage({ continueLast: true }, text) };
    return { kind: "line", start: { continueLast: true, task: text } };
  }
  if (text === undefined) return ui ? { kind: "tui", start: {} } : { kind: "line", start: {} };
  if (ui) return { kind: "tui", start: { task: text } };
  // At a terminal that cannot draw the UI (TERM=dumb, RELM_NO_TUI) the person still expects a
  // conversation; with a pipe at either end, the one-shot run's answer-on-stdout is what scripts want.
  if (t.stdinIsTTY && t.stdoutIsTTY) return { kind: "line", start: { task: text } };
  return { kind: "run", task: text };
}

/**
 * The task or first message the words after the options make; undefined without any. Blank words
 * (`relm run "$TASK"` with TASK unset or spaces) are refused as an empty task is: they are truthy, so
 * every later "is there a task?" check let them through, and a session started with an empty title.
 */
export function taskOf(words: string[]): string | undefined {
  if (words.length === 0) return undefined;
  const text = words.join(" ");
  if (text.trim() === "") throw new UsageError('no task given: the task is blank; relm run "what to do"');
  return text;
}

function withMessage(start: TuiStart, text: string | undefined): TuiStart {
  return text === undefined ? start : { ...start, resumeMessage: text };
}

/** `relm attach ID` and `relm run --resume ID` open the UI only where it can be drawn and no JSON is wanted. */
export function attachUsesUi(flags: { json?: boolean }, t: Terminal): boolean {
  return !flags.json && uiAvailable(t);
}

export function resumeRunUsesUi(flags: SessionSpec, t: Terminal): boolean {
  return Boolean(flags.resume) && !flags.json && !flags.detach && !flags.asHost && uiAvailable(t);
}

/** `relm login`: the picker in a terminal; the scripted path with --api-key-stdin or without one. */
export function loginUsesUi(flags: { apiKeyStdin?: boolean }, t: Terminal): boolean {
  return !flags.apiKeyStdin && uiAvailable(t);
}

// The UI is a separate chunk of the bundle: these are the only two places that load it.

/** Opens the UI; a session id prefix is resolved first, so a mistyped one is reported in plain text. */
export async function openTui(start: TuiStart, flags: SessionSpec, io: RunIo): Promise<number> {
  if (start.sessionId) {
    const [{ resolveSessionId, sessionsDir }, { relmHomeFrom }] = await Promise.all([
      import("../session/index.js"),
      import("../config/config.js"),
    ]);
    start = { ...start, sessionId: resolveSessionId(sessionsDir(relmHomeFrom(io.env)), start.sessionId) };
  }
  const [{ runTui }, { registerSlashCommands }] = await Promise.all([
    import("../tui/main.js"),
    import("./slash-commands.js"),
  ]);
  registerSlashCommands();
  // The hosts the UI starts get its options in their spec (tui/main.ts tuiHostSpec), nothing in the environment.
  return runTui(start, flags, io);
}

/** `relm login` and `relm acp login`: the picker where it can be drawn, else the line-mode login. */
export async function loginAction(
  flags: SessionSpec & { apiKeyStdin?: boolean },
  io: RunIo,
): Promise<number> {
  if (loginUsesUi(flags, terminalOf(io))) {
    const { runLoginUi } = await import("../tui/main.js");
    return runLoginUi(flags, io);
  }
  const { login } = await import("./login/login.js");
  return login(flags, io);
}
