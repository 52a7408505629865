import { describe, expect, it } from "vitest";
import {
  attachUsesUi,
  chooseRootFrontEnd,
  loginUsesUi,
  resumeRunUsesUi,
  type Terminal,
  uiAvailable,
} from "../../src/cli/front-end.js";
import { closestCommand, refuseTypo, typoOf } from "../../src/cli/suggest.js";
import { editDistance } from "../../src/config/presets.js";

const TTY: Terminal = { stdinIsTTY: true, stdoutIsTTY: true, term: "xterm-256color" };
const PIPE_IN: Terminal = { ...TTY, stdinIsTTY: false };
const PIPE_OUT: Terminal = { ...TTY, stdoutIsTTY: false };
const DUMB: Terminal = { ...TTY, term: "dumb" };
const NO_TUI: Terminal = { ...TTY, noTui: true };

const COMMANDS = [
  "run",
  "demo",
  "doctor",
  "export",
  "login",
  "agents",
  "logs",
  "attach",
  "send",
  "stop",
  "status",
  "shutdown",
  "schedule",
  "refine",
  "harness",
  "checkpoints",
  "undo",
  "help",
];

describe("where the UI can be drawn", () => {
  it("needs a terminal at both ends, a TERM that can draw, and no RELM_NO_TUI", () => {
    expect(uiAvailable(TTY)).toBe(true);
    expect(uiAvailable({ ...TTY, term: undefined })).toBe(true);
    for (const t of [PIPE_IN, PIPE_OUT, DUMB, NO_TUI]) expect(uiAvailable(t), JSON.stringify(t)).toBe(false);
  });
});

describe("relm with no command", () => {
  it("opens the UI in a terminal and line mode elsewhere", () => {
    expect(chooseRootFrontEnd({ words: [] }, TTY)).toEqual({ kind: "tui", start: {} });
    for (const t of [PIPE_IN, PIPE_OUT, DUMB, NO_TUI])
      expect(chooseRootFrontEnd({ words: [] }, t)).toEqual({ kind: "line", start: {} });
  });

  it('relm "task": the UI with a first message; at a terminal without the UI, line mode; else one run', () => {
    const call = { words: ["fix the failing test"] };
    expect(chooseRootFrontEnd(call, TTY)).toEqual({ kind: "tui", start: { task: "fix the failing test" } });
    expect(chooseRootFrontEnd(call, DUMB)).toEqual({ kind: "line", start: { task: "fix the failing test" } });
    expect(chooseRootFrontEnd(call, NO_TUI)).toEqual({
      kind: "line",
      start: { task: "fix the failing test" },
    });
    expect(chooseRootFrontEnd(call, PIPE_IN)).toEqual({ kind: "run", task: "fix the failing test" });
    expect(chooseRootFrontEnd(call, PIPE_OUT)).toEqual({ kind: "run", task: "fix the failing test" });
    // Unquoted words are one message.
    expect(chooseRootFrontEnd({ words: ["fix", "it"] }, TTY)).toEqual({
      kind: "tui",
      start: { task: "fix it" },
    });
  });

  it("--continue reopens the last session: in the UI, else in line mode, with any words as the next message", () => {
    expect(chooseRootFrontEnd({ words: [], continueLast: true }, TTY)).toEqual({
      kind: "tui",
      start: { continueLast: true },
    });
    expect(chooseRootFrontEnd({ words: ["and now the docs"], continueLast: true }, TTY)).toEqual({
      kind: "tui",
      start: { continueLast: true, resumeMessage: "and now the docs" },
    });
    expect(chooseRootFrontEnd({ words: [], continueLast: true }, PIPE_IN)).toEqual({
      kind: "line",
      start: { continueLast: true, task: undefined },
    });
  });

  it("--resume ID opens that session; --resume alone opens the picker, which needs the UI", () => {
    expect(chooseRootFrontEnd({ words: [], resume: "ab12" }, TTY)).toEqual({
      kind: "tui",
      start: { sessionId: "ab12" },
    });
    expect(chooseRootFrontEnd({ words: ["go on"], resume: "ab12" }, TTY)).toEqual({
      kind: "tui",
      start: { sessionId: "ab12", resumeMessage: "go on" },
    });
    expect(chooseRootFrontEnd({ words: ["go on"], resume: "ab12" }, DUMB)).toEqual({
      kind: "line",
      start: { resumeId: "ab12", task: "go on" },
    });
    expect(chooseRootFrontEnd({ words: [], resume: true }, TTY)).toEqual({
      kind: "tui",
      start: { pickSession: true },
    });
    expect(() => chooseRootFrontEnd({ words: [], resume: true }, PIPE_OUT)).toThrow(
      /needs a terminal.*relm run --resume ID "message"/,
    );
    expect(() => chooseRootFrontEnd({ words: [], resume: "x", continueLast: true }, TTY)).toThrow(
      /either --continue or --resume/,
    );
  });
});

describe("commands that open the UI in a terminal", () => {
  it("attach: not with --json, not without a terminal", () => {
    expect(attachUsesUi({}, TTY)).toBe(true);
    expect(attachUsesUi({ json: true }, TTY)).toBe(false);
    expect(attachUsesUi({}, PIPE_IN)).toBe(false);
    expect(attachUsesUi({}, DUMB)).toBe(false);
  });

  it("run: only --resume, and not with --json, --detach or as a detached host", () => {
    expect(resumeRunUsesUi({ resume: "ab" }, TTY)).toBe(true);
    expect(resumeRunUsesUi({}, TTY)).toBe(false);
    expect(resumeRunUsesUi({ resume: "ab", json: true }, TTY)).toBe(false);
    expect(resumeRunUsesUi({ resume: "ab", detach: true }, TTY)).toBe(false);
    expect(resumeRunUsesUi({ resume: "ab", asHost: "ab" }, TTY)).toBe(false);
    expect(resumeRunUsesUi({ resume: "ab" }, PIPE_OUT)).toBe(false);
  });

  it("login: the picker unless the key comes from stdin or there is no terminal", () => {
    expect(loginUsesUi({}, TTY)).toBe(true);
    expect(loginUsesUi({ apiKeyStdin: true }, TTY)).toBe(false);
    expect(loginUsesUi({}, PIPE_IN)).toBe(false);
    expect(loginUsesUi({}, NO_TUI)).toBe(false);
  });
});

describe("a mistyped command or a task", () => {
  it("measures edit distance", () => {
    expect(editDistance("agnets", "agents")).toBe(2);
    expect(editDistance("stats", "status")).toBe(1);
    expect(editDistance("", "run")).toBe(3);
    expect(editDistance("run", "run")).toBe(0);
  });

  it("suggests the closest command for one word within distance 2, or a prefix", () => {
    expect(typoOf(["agnets"], COMMANDS)).toBe("agents");
    expect(typoOf(["atach"], COMMANDS)).toBe("attach");
    expect(typoOf(["sched"], COMMANDS)).toBe("schedule");
    expect(typoOf(["checkpoint"], COMMANDS)).toBe("checkpoints");
    expect(closestCommand("lgo", ["add", "rm", "list", "log", "show"])).toBe("log");
    expect(closestCommand("ad", ["add", "list", "cancel"])).toBe("add");
  });

  it("treats more than one word, a phrase, or a word far from every command as a task", () => {
    expect(typoOf(["fix", "tests"], COMMANDS)).toBeUndefined();
    expect(typoOf(["agnets please"], COMMANDS)).toBeUndefined();
    expect(typoOf(["refactor"], COMMANDS)).toBeUndefined();
    expect(typoOf(["summarise"], COMMANDS)).toBeUndefined();
    expect(typoOf(["README.md"], COMMANDS)).toBeUndefined();
    expect(typoOf(["explain"], COMMANDS)).toBeUndefined();
  });

  it("refuses a typo with the message users see", () => {
    expect(() => refuseTypo(["agnets"], COMMANDS)).toThrow(
      'unknown command "agnets" — did you mean "agents"?',
    );
    expect(() => refuseTypo(["write the docs"], COMMANDS)).not.toThrow();
  });
});
