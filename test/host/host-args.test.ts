// The options a new session host is handed (config/options.ts, config/session-spec.ts): every option
// `relm run` defines is in the one table, inherited by hosts or deliberately not, and every front end
// that starts hosts passes on what the table says.
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { hostSpecOf } from "../../src/cli/host-args.js";
import { buildProgram } from "../../src/cli/program.js";
import { OPTIONS, type SessionSpec } from "../../src/config/options.js";
import { inheritedSpec } from "../../src/config/session-spec.js";
import { tuiHostSpec, tuiResumeSpec } from "../../src/tui/main.js";

function program(): Command {
  const io = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() };
  return buildProgram(io, () => {});
}

function optionsOf(cmd: Command): { key: string; long: string }[] {
  return cmd.options
    .filter((o) => o.long !== "--help" && o.long !== "--version")
    .map((o) => ({ key: o.attributeName(), long: o.long ?? "" }));
}

/** A spec with `key` set to a value of its kind. */
function withOne(key: string): SessionSpec {
  const entry = OPTIONS.find((o) => o.key === key);
  if (!entry) throw new Error(`no entry for ${key}`);
  const value = entry.kind === "switch" ? true : entry.kind === "list" ? ["v1", "v2"] : "7";
  return { [key]: value } as SessionSpec;
}

const inherited: readonly string[] = OPTIONS.filter(
  (o) => typeof o.inherit === "string" && o.inherit !== "launcher",
).map((o) => o.key);

describe("the options a new host is started with", () => {
  const run = program().commands.find((c) => c.name() === "run");

  it("covers every option of relm run: each is in the table, inherited or not with a reason", () => {
    expect(run).toBeDefined();
    const options = optionsOf(run as Command);
    expect(options.length).toBeGreaterThan(20);
    for (const { key, long } of options) {
      const def = OPTIONS.find((o) => o.key === key);
      expect(def, `relm run ${long} is not in the option table`).toBeDefined();
      expect(def?.flags.split(/[\s,]+/)).toContain(long);
      const inherit = def?.inherit;
      if (typeof inherit === "object") expect(inherit.never.length).toBeGreaterThan(10);
    }
  });

  it("passes on every inherited option, and none of the others", () => {
    for (const def of OPTIONS) {
      const spec = inheritedSpec(withOne(def.key), "/p");
      const passed = inherited.includes(def.key);
      expect(Object.keys(spec), def.key).toEqual(passed ? [def.key] : []);
    }
    expect(inheritedSpec({ sandbox: false, learn: false, var: [] }, "/p")).toEqual({});
    expect(inheritedSpec({ mcpConfig: ["a.json", "/abs/b.json"] }, "/p")).toEqual({
      mcpConfig: ["/p/a.json", "/abs/b.json"],
    });
  });

  it("gives the terminal UI's hosts every session option of relm itself (--sandbox, --kernel, --allow-web...)", () => {
    const rootOnly = new Set(["continue", "resume"]);
    for (const { key, long } of optionsOf(program())) {
      if (rootOnly.has(key)) continue;
      expect(tuiHostSpec(withOne(key), "/p"), `the terminal UI drops ${long}`).toHaveProperty(key);
    }
    // Per-task options are asked for per session in the UI, never given to every session it starts.
    expect(tuiHostSpec({ gate: ["true"], goal: "g", autonomous: true }, "/p")).toEqual({});
    // A saved session's variables were loaded at its start.
    expect(tuiResumeSpec({ var: ["A=1"], model: "m" }, "/p")).toEqual({ model: "m" });
  });

  it("gives relm acp's and relm mcp serve's hosts the session options, budgets only when asked", () => {
    const flags: SessionSpec = { sandbox: true, kernel: "local", maxTurns: "3", var: ["A=1"], gate: ["x"] };
    expect(hostSpecOf(flags, "/p", { budgets: true })).toEqual({
      maxTurns: "3",
      kernel: "local",
      sandbox: true,
    });
    expect(hostSpecOf(flags, "/p", { budgets: false })).toEqual({ kernel: "local", sandbox: true });
  });
});
