// The full-screen terminal UI's entry points. Loaded lazily (never by `relm --version`, `relm run` or
// `relm -p`): the CLI imports this module only when stdout and stdin are a terminal.
import type { RunFlags, RunIo } from "../cli/run.js";

/** What the UI opens with. */
export interface TuiStart {
  /** A new session in io.cwd (default), optionally with its first message. */
  task?: string;
  /** `relm --continue`: the last session of this directory (a new one when there is none). */
  continueLast?: boolean;
  /** `relm --resume` with no id: a picker of this directory's sessions. */
  pickSession?: boolean;
  /** `relm attach ID` / `relm run --resume ID`: this session (full id or unique prefix). */
  sessionId?: string;
  /** `relm run --resume ID "text"`: sent to the resumed session as its next message. */
  resumeMessage?: string;
}

/** Runs the UI until the person leaves; returns the process exit code. */
export async function runTui(_start: TuiStart, _flags: RunFlags, _io: RunIo): Promise<number> {
  throw new Error("the terminal UI is being built");
}

/** `relm login` in a terminal (and /login): the provider picker; exit 0 saved, 130 cancelled. */
export async function runLoginUi(_flags: RunFlags, _io: RunIo): Promise<number> {
  throw new Error("the terminal UI is being built");
}
