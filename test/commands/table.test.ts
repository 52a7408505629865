// The one slash command table: every command defined once, and what each front end lists comes from it.
import { describe, expect, it } from "vitest";
import { availableCommands as acpOfDir, isCommand } from "../../src/acp/commands.js";
import { lineHelp } from "../../src/cli/line-commands.js";
import { registerSlashCommands } from "../../src/cli/slash-commands.js";
import { runCommandLine } from "../../src/commands/run.js";
import { allCommands, commandsFor, splitCommandLine } from "../../src/commands/table.js";
import type { CommandContext, FrontEnd } from "../../src/commands/types.js";
import { shellWords } from "../../src/commands/words.js";
import type { HostCall } from "../../src/host/protocol.js";
import { paletteEntries, uiCommands as uiOfDir } from "../../src/tui/slash.js";

const FRONT_ENDS: readonly FrontEnd[] = ["ui", "acp", "line"];

registerSlashCommands();

/** A context that records what is said and which host methods are called (no host behind it). */
function recording() {
  const said: string[] = [];
  const calls: [string, unknown][] = [];
  const call = (async (method: string, params?: unknown) => {
    calls.push([method, params]);
    throw new Error(`no host in this test (${method})`);
  }) as HostCall;
  const ctx: CommandContext = {
    call,
    live: async () => true,
    busy: false,
    showsEvents: true,
    say: (text) => void said.push(text),
    show: async (_t, lines) => void said.push(lines.join("\n")),
    confirm: async () => false,
  };
  return { ctx, said, calls };
}

describe("the slash command table", () => {
  it("has each name once, each with a help line, learning's commands included once registered", () => {
    const names = allCommands().flatMap((c) => [c.name, ...(c.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
    for (const c of allCommands()) {
      expect(c.description.trim(), `/${c.name}`).not.toBe("");
      expect(c.name).toMatch(/^[a-z][a-z-]*$/);
      for (const f of c.in ?? []) expect(FRONT_ENDS).toContain(f);
    }
    expect(names).toEqual(expect.arrayContaining(["goal", "autonomous", "heartbeat", "refine", "learn"]));
    registerSlashCommands(); // twice: still once each
    expect(allCommands().filter((c) => c.name === "learn")).toHaveLength(1);
  });

  it("is what the UI's palette, ACP's available_commands and line mode's /help list", () => {
    const names = (f: "ui" | "acp" | "line") => commandsFor(f).map((c) => c.name);
    // A directory with no custom commands (.relm/commands/) and a home without any either.
    const none = "/nonexistent-relm-test";
    const uiCommands = () => uiOfDir(none, none);
    const availableCommands = () => acpOfDir(none, none);
    expect(uiCommands().map((c) => c.name)).toEqual(names("ui"));
    expect(paletteEntries(uiCommands())).toEqual(
      commandsFor("ui").map((c) => ({ name: c.name, description: c.description, argumentHint: c.args })),
    );
    expect(availableCommands()).toEqual(
      commandsFor("acp").map((c) => ({
        name: c.name,
        description: c.description,
        ...(c.args ? { input: { hint: c.args } } : {}),
      })),
    );
    const help = lineHelp();
    for (const c of commandsFor("line")) expect(help).toContain(`/${c.name}${c.args ? ` ${c.args}` : ""}`);
    // Each front end offers the work commands; a command that asks a question is not offered in ACP,
    // and the UI's own screen commands only there.
    for (const f of FRONT_ENDS)
      expect(names(f)).toEqual(
        expect.arrayContaining(["goal", "autonomous", "compact", "undo", "heartbeat"]),
      );
    expect(names("acp")).not.toContain("refine");
    expect(names("line")).toEqual(expect.arrayContaining(["refine", "learn", "help", "quit"]));
    expect(names("line")).not.toContain("resume");
    expect(names("ui")).toContain("resume");
  });

  it("every command a front end offers is either shared or one that front end does itself", () => {
    const own: Record<string, string[]> = { ui: [], acp: [], line: ["help", "quit"] };
    own.ui = ["help", "login", "search-setup", "resume", "new", "clear", "attach", "detach", "quit"];
    own.ui.push("export", "agents", "expand", "copy", "theme", "web");
    for (const f of FRONT_ENDS)
      for (const c of commandsFor(f)) if (!c.run) expect(own[f], `/${c.name} in ${f}`).toContain(c.name);
  });

  it("reads arguments like a shell and says usage errors, calling nothing", async () => {
    expect(splitCommandLine('/Goal "ship the parser" now')).toEqual({
      name: "goal",
      rest: '"ship the parser" now',
    });
    expect(splitCommandLine("fix /goal in the parser")).toBeUndefined();
    expect(splitCommandLine("//not a command")).toBeUndefined();
    expect(isCommand("/autonomous on 'npm test'")).toBe(true);
    expect(isCommand("/resume")).toBe(false); // the UI's own: a message in an editor
    expect(shellWords(`a "" 'b c' d"e f"`)).toEqual(["a", "", "b c", "de f"]);
    const { ctx, said, calls } = recording();
    for (const line of ["/autonomous maybe", "/undo x", "/heartbeat 10m", "/learn sometimes", "/refine team"])
      await runCommandLine(ctx, commandsFor("line"), line);
    expect(said).toEqual([
      'usage: /autonomous on ["GATE" …] | off | status',
      "usage: /undo [TURN | pick]   (no argument: one code-running turn further back each time)",
      'usage: /heartbeat 10m "what to do at each beat" | off   (no argument: lists them)',
      "usage: /learn on | off | status",
      "usage: /refine [session|project|user]   (default session)",
    ]);
    expect(calls).toEqual([]);
    await runCommandLine(ctx, commandsFor("line"), '/goal "unclosed');
    await runCommandLine(ctx, commandsFor("line"), "/gola x");
    expect(said.slice(-2)).toEqual([
      '/goal: unclosed double quote in: "unclosed (close it, or write it as \\")',
      "unknown command /gola — did you mean /goal? (/help lists them)",
    ]);
  });

  it("sends each command's host method with its params through the context", async () => {
    const { ctx, said, calls } = recording();
    await runCommandLine(ctx, commandsFor("acp"), '/heartbeat 10m "check the build"');
    await runCommandLine(ctx, commandsFor("acp"), "/autonomous on 'npm test' \"ruff check\"");
    expect(calls).toEqual([
      ["heartbeat", { every: "10m", prompt: "check the build" }],
      ["autonomy", { mode: "on", gates: ["npm test", "ruff check"] }],
    ]);
    // A failure is said with the command's name, never thrown.
    expect(said).toEqual([
      "/heartbeat: no host in this test (heartbeat)",
      "/autonomous: no host in this test (autonomy)",
    ]);
  });
});
