// The terminal UI's test harness: runs the real `relm` (or any program) in a pseudo-terminal and reads
// what a person would see through a terminal emulator (@xterm/headless), cell by cell with colours.
// Tests type and press keys, paste, resize, and wait for the screen to show something; nothing sleeps
// for a fixed time. scripts/screenshots.mjs drives relm through this same module.
//
//   const startRig = useRigs();
//   const startPty = usePtys(); // after useRigs(): relm is closed before the rig looks for stray kernels
//   const rig = await startRig("openai", { script: [{ text: "Hello!" }] });
//   const p = startPty({ env: rig.env, cwd: rig.cwd, cols: 100, rows: 30 });
//   await p.type("say hello");
//   await p.press("enter");
//   await p.waitFor("Hello!");
//   expect(p.styleOf("Hello!").bold).toBe(false);
import pty, { type IPty } from "@lydell/node-pty";
import xterm, { type Terminal } from "@xterm/headless";
import { afterEach } from "vitest";
import { type CellColor, cellColor, type SvgOptions, screenToSvg } from "../../scripts/lib/screen-svg.mjs";
import { cleanEnv, RELM_BIN, ROOT } from "./cli.js";
import { type KeyName, keyBytes } from "./terminal-keys.js";
import { modernWidths } from "./terminal-width.js";

export type { CellColor } from "../../scripts/lib/screen-svg.mjs";
export { type KeyName, keyBytes } from "./terminal-keys.js";

/**
 * Default time waitFor / waitForExit give the program. They return as soon as the condition holds, so
 * the bound only decides when a run that is merely slow is called a failure: 15 s failed one at load
 * 20-33 (two cores shared by seven engineers). Below vitest's 60 s test timeout, so that a failure still
 * comes with the screen.
 */
export const WAIT_MS = 45_000;
/** A lone ESC followed this soon by more input reads as Alt+key; the next write waits this long after it. */
const ESC_GAP_MS = 60;
/** Large pastes are written in pieces of this many characters, as a real terminal delivers them. */
const PASTE_CHUNK = 4096;

export interface PtyExit {
  exitCode: number;
  /** The signal that ended the program, if one did (0 or undefined otherwise). */
  signal?: number;
}

/** One cell's character and look, as the emulator holds it. Rows and columns count from 0. */
export interface CellStyle {
  char: string;
  /** 1, or 2 for the left half of a wide character (the right half has width 0). */
  width: number;
  fg: CellColor;
  bg: CellColor;
  bold: boolean;
  italic: boolean;
  dim: boolean;
  underline: boolean;
  inverse: boolean;
  strikethrough: boolean;
  invisible: boolean;
}

/** What waitFor looks for: text on the screen, a pattern, or any condition on the text (or the pty). */
export type Matcher = string | RegExp | ((text: string, pty: Pty) => boolean);

export interface WaitOptions {
  timeoutMs?: number;
  /** "screen" (default): the visible rows; "all": scrollback and screen. */
  where?: "screen" | "all";
}

export interface PtyOptions {
  /** relm's arguments (appended to `command`). */
  args?: string[];
  /** Program and leading arguments; default `[node, dist/cli/relm.cjs]`, i.e. the built relm. */
  command?: string[];
  /** Default cleanEnv(). TERM=xterm-256color (unless TERM=dumb is given) and COLORTERM=truecolor are set; NO_COLOR is removed. */
  env?: NodeJS.ProcessEnv;
  /** Keep NO_COLOR (cleanEnv sets it for piped tests; a terminal UI test usually wants colours). */
  noColor?: boolean;
  /** Default the repository root. */
  cwd?: string;
  cols?: number;
  rows?: number;
  /** The background colour the terminal reports when asked (OSC 11), as `rgb:RRRR/GGGG/BBBB`; default: it does not answer. */
  background?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function describeMatcher(match: Matcher): string {
  return typeof match === "function"
    ? "a condition"
    : typeof match === "string"
      ? JSON.stringify(match)
      : `${match}`;
}

/** A program running in a pseudo-terminal, with the emulator that shows its screen. */
export class Pty {
  /** The emulator, for anything this class does not cover. */
  readonly term: Terminal;
  readonly pid: number;
  /** Settles when the program has exited and all its output is on the screen. */
  readonly exited: Promise<PtyExit>;
  private exitInfo: PtyExit | undefined;
  private readonly proc: IPty;
  private raw = "";
  private cursorVisible = true;
  private writes: Promise<void> = Promise.resolve();
  private escAt = 0;
  private closed = false;

  constructor(options: PtyOptions = {}) {
    const cols = options.cols ?? 100;
    const rows = options.rows ?? 30;
    const given = options.env ?? cleanEnv();
    // A test may ask for another terminal type (TERM=dumb); otherwise the emulator's own.
    const env: NodeJS.ProcessEnv = {
      ...given,
      TERM: given.TERM === "dumb" ? "dumb" : "xterm-256color",
      COLORTERM: "truecolor",
    };
    if (!options.noColor) delete env.NO_COLOR;
    const [file, ...lead] = options.command ?? [process.execPath, RELM_BIN];
    if (!file) throw new Error("startPty: empty command");
    this.term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 5000 });
    this.term.unicode.register(modernWidths);
    this.term.unicode.activeVersion = modernWidths.version;
    // DECTCEM (cursor shown/hidden) is not in the public modes; watch for it without consuming it.
    for (const final of ["h", "l"]) {
      this.term.parser.registerCsiHandler({ prefix: "?", final }, (params) => {
        if (params.includes(25)) this.cursorVisible = final === "h";
        return false;
      });
    }
    this.proc = pty.spawn(file, [...lead, ...(options.args ?? [])], {
      name: env.TERM ?? "xterm-256color",
      cols,
      rows,
      cwd: options.cwd ?? ROOT,
      env,
    });
    this.pid = this.proc.pid;
    const background = options.background;
    if (background)
      this.term.parser.registerOscHandler(11, (data) => {
        if (data === "?") this.proc.write(`\u001b]11;${background}\u0007`);
        return true;
      });
    this.proc.onData((data) => {
      this.raw += data;
      this.term.write(data);
    });
    // The emulator's own replies (cursor position reports, device attributes) go back to the program.
    this.term.onData((data) => {
      if (!this.exit) this.proc.write(data);
    });
    this.exited = new Promise((resolve) => {
      this.proc.onExit(({ exitCode, signal }) => {
        void this.flush().then(() => {
          this.exitInfo = { exitCode, signal };
          resolve(this.exitInfo);
        });
      });
    });
  }

  /** How the program exited, once it has (and its last output is on the screen). */
  get exit(): PtyExit | undefined {
    return this.exitInfo;
  }

  /** Everything the program wrote, escape sequences included. */
  output(): string {
    return this.raw;
  }

  /** The visible rows as text, right-trimmed. */
  screen(): string[] {
    const buffer = this.term.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < this.term.rows; y++)
      rows.push(
        buffer
          .getLine(buffer.baseY + y)
          ?.translateToString(true)
          .trimEnd() ?? "",
      );
    return rows;
  }

  /** screen() joined with newlines: what waitFor matches by default. */
  screenText(): string {
    return this.screen().join("\n");
  }

  /** Every row of the buffer, scrollback first, then the screen. */
  scrollback(): string[] {
    const buffer = this.term.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < buffer.length; y++)
      rows.push(buffer.getLine(y)?.translateToString(true).trimEnd() ?? "");
    return rows;
  }

  /** scrollback() joined with newlines. */
  allText(): string {
    return this.scrollback().join("\n");
  }

  /** Where the cursor is on the screen, and whether the program shows it. */
  cursor(): { row: number; col: number; visible: boolean } {
    const buffer = this.term.buffer.active;
    return { row: buffer.cursorY, col: buffer.cursorX, visible: this.cursorVisible };
  }

  /** Row and column (in cells, so wide characters count twice) where `text` first appears on the screen. */
  find(text: string | RegExp): { row: number; col: number } | undefined {
    const buffer = this.term.buffer.active;
    const cell = buffer.getNullCell();
    for (let row = 0; row < this.term.rows; row++) {
      const line = buffer.getLine(buffer.baseY + row);
      if (!line) continue;
      // The row's text with the column each character starts at.
      let chars = "";
      const colOf: number[] = [];
      for (let col = 0; col < this.term.cols; col++) {
        line.getCell(col, cell);
        if (cell.getWidth() === 0) continue;
        const c = cell.getChars() || " ";
        for (let i = 0; i < c.length; i++) colOf.push(col);
        chars += c;
      }
      chars = chars.trimEnd(); // as screen() gives it, so /…$/ means the end of the text
      const index =
        typeof text === "string"
          ? chars.indexOf(text)
          : (new RegExp(text.source, text.flags.replace("g", "")).exec(chars)?.index ?? -1);
      if (index >= 0) return { row, col: colOf[index] ?? 0 };
    }
    return undefined;
  }

  /** The character and look of the cell at screen row `row`, column `col`. */
  cellStyle(row: number, col: number): CellStyle {
    const buffer = this.term.buffer.active;
    const cell = buffer.getLine(buffer.baseY + row)?.getCell(col);
    if (!cell)
      throw new Error(
        `cellStyle: no cell at row ${row}, column ${col} (${this.term.cols}x${this.term.rows})`,
      );
    return {
      char: cell.getChars(),
      width: cell.getWidth(),
      fg: cellColor(cell, "fg"),
      bg: cellColor(cell, "bg"),
      bold: Boolean(cell.isBold()),
      italic: Boolean(cell.isItalic()),
      dim: Boolean(cell.isDim()),
      underline: Boolean(cell.isUnderline()),
      inverse: Boolean(cell.isInverse()),
      strikethrough: Boolean(cell.isStrikethrough()),
      invisible: Boolean(cell.isInvisible()),
    };
  }

  /** The style of the first character of `text` where it first appears on the screen. */
  styleOf(text: string | RegExp): CellStyle {
    const at = this.find(text);
    if (!at) throw new Error(`styleOf: ${describeMatcher(text)} is not on the screen\n${this.dump()}`);
    return this.cellStyle(at.row, at.col);
  }

  /**
   * Waits until the screen (or, with where: "all", the whole buffer) matches, and returns that text.
   * Checked after each batch of output is parsed, never in the middle of a synchronized update (a frame
   * being drawn). Fails fast, with the screen in the message, on timeout or if the program exits first.
   */
  waitFor(match: Matcher, options: WaitOptions = {}): Promise<string> {
    const timeoutMs = options.timeoutMs ?? WAIT_MS;
    const read = () => (options.where === "all" ? this.allText() : this.screenText());
    const test =
      typeof match === "string"
        ? (text: string) => text.includes(match)
        : match instanceof RegExp
          ? (text: string) => new RegExp(match.source, match.flags.replace("g", "")).test(text)
          : (text: string) => match(text, this);
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void) => {
        if (done) return;
        done = true;
        parsed.dispose();
        clearInterval(poll);
        clearTimeout(timer);
        settle();
      };
      const check = () => {
        if (done || (this.term.modes.synchronizedOutputMode && !this.exit)) return;
        const text = read();
        if (test(text)) finish(() => resolve(text));
        else if (this.exit) {
          const how = `exit code ${this.exit.exitCode}${this.exit.signal ? `, signal ${this.exit.signal}` : ""}`;
          finish(() =>
            reject(
              new Error(`waitFor(${describeMatcher(match)}): the program ended (${how})\n${this.dump()}`),
            ),
          );
        }
      };
      const parsed = this.term.onWriteParsed(check);
      // A slow poll as well, for conditions that look beyond the emulator (files, the exit status).
      const poll = setInterval(check, 100);
      const timer = setTimeout(() => {
        finish(() =>
          reject(
            new Error(`waitFor(${describeMatcher(match)}) timed out after ${timeoutMs} ms\n${this.dump()}`),
          ),
        );
      }, timeoutMs);
      void this.flush().then(check);
      void this.exited.then(check);
    });
  }

  /** Waits for the program to exit (killing nothing); a timeout is an error showing the screen. */
  async waitForExit(timeoutMs = WAIT_MS): Promise<PtyExit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the program did not exit within ${timeoutMs} ms\n${this.dump()}`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Types `text` as raw keystrokes (escape sequences included). Resolves once written. */
  type(text: string): Promise<void> {
    return this.send(() => text);
  }

  /** Presses keys by name, one write each, e.g. press("down", "down", "enter"). */
  async press(...keys: KeyName[]): Promise<void> {
    for (const key of keys) {
      keyBytes(key); // an unknown name fails here, at the caller, not inside the write queue
      await this.send(() => keyBytes(key, this.term.modes.applicationCursorKeysMode));
    }
  }

  /**
   * Pastes `text` as a terminal does: wrapped in \x1b[200~ … \x1b[201~ when the program has turned on
   * bracketed paste (plain keystrokes otherwise), written in pieces so a large paste arrives over several
   * reads. The text is sent as given (real terminals turn "\n" into "\r"; pass it that way to test that).
   */
  async paste(text: string): Promise<void> {
    const bracketed = this.term.modes.bracketedPasteMode;
    const whole = bracketed ? `\x1b[200~${text}\x1b[201~` : text;
    const codePoints = Array.from(whole); // never split a surrogate pair between two writes
    for (let i = 0; i < codePoints.length; i += PASTE_CHUNK) {
      await this.send(() => codePoints.slice(i, i + PASTE_CHUNK).join(""));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Resizes the terminal: the emulator and the pty (which sends the program SIGWINCH). */
  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
    if (!this.exit) this.proc.resize(cols, rows);
  }

  /** Sends the program a signal (default SIGTERM) unless it has exited. */
  kill(signal: NodeJS.Signals = "SIGTERM"): void {
    if (this.exit) return;
    try {
      this.proc.kill(signal);
    } catch (error) {
      // It exited a moment ago and `exit` is not set yet (its last output is still being parsed).
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }

  /** Ends the program if it still runs (SIGTERM, then SIGKILL after `graceMs`) and frees the emulator. */
  async close(graceMs = 5000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.exit) {
      this.kill("SIGTERM");
      const timer = setTimeout(() => this.kill("SIGKILL"), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    this.term.dispose();
  }

  /** The screen as an SVG picture (see scripts/lib/screen-svg.mjs), e.g. to save what a failing test saw. */
  svg(options: SvgOptions = {}): string {
    const { row, col, visible } = this.cursor();
    return screenToSvg(this.term, { cursor: visible ? { x: col, y: row } : null, ...options });
  }

  /** The screen with row numbers, the size and the cursor: the body of every timeout message. */
  dump(): string {
    const rows = this.screen();
    let last = rows.length - 1;
    while (last > 0 && rows[last] === "") last--;
    const { row, col, visible } = this.cursor();
    const lines = rows.slice(0, last + 1).map((text, i) => `${String(i).padStart(3)} │${text}`);
    if (last < rows.length - 1) lines.push(`    (rows ${last + 1}–${rows.length - 1} empty)`);
    const state = [
      `${this.term.cols}x${this.term.rows}`,
      `cursor row ${row} col ${col}${visible ? "" : " (hidden)"}`,
      this.term.buffer.active.type === "alternate" ? "alternate screen" : "normal screen",
      this.exit ? `exited with code ${this.exit.exitCode}` : "running",
    ];
    return `--- screen (${state.join(", ")}) ---\n${lines.join("\n")}\n---`;
  }

  /** Output written so far is on the emulator's buffer once this resolves. */
  private flush(): Promise<void> {
    return new Promise((resolve) => this.term.write("", resolve));
  }

  /** Writes in order; `bytes` is called at write time so mode-dependent keys see the current mode. */
  private send(bytes: () => string): Promise<void> {
    const next = this.writes.then(async () => {
      // A bare ESC just before more input would read as Alt+key; a person cannot type that fast.
      const sinceEsc = Date.now() - this.escAt;
      if (sinceEsc < ESC_GAP_MS) await sleep(ESC_GAP_MS - sinceEsc);
      if (this.exit) throw new Error(`cannot write to the program: it has exited\n${this.dump()}`);
      const data = bytes();
      this.proc.write(data);
      this.escAt = data.endsWith("\x1b") ? Date.now() : 0;
    });
    this.writes = next.catch(() => {});
    return next;
  }
}

/** Starts `relm ...args` (or options.command) in a pseudo-terminal of options.cols x options.rows (100x30). */
export function startPty(options: PtyOptions = {}): Pty {
  return new Pty(options);
}

/**
 * `startPty` for a test file: every pty started in a test is closed after it. Call it after useRigs()
 * so that (after-hooks running in reverse) relm has exited before the rig checks for leftover kernels.
 */
export function usePtys(): typeof startPty {
  let started: Pty[] = [];
  afterEach(async () => {
    const ptys = started;
    started = [];
    await Promise.all(ptys.map((p) => p.close()));
  });
  return (options) => {
    const p = startPty(options);
    started.push(p);
    return p;
  };
}
