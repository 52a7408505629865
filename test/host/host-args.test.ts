// The one list of flags a new session host is started with (src/host/host-args.ts): every option
// `relm run` defines is passed on or deliberately not, and every front end that starts hosts uses it.
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { hostArgsOf as acpHostArgs } from "../../src/cli/host-args.js";
import { buildProgram } from "../../src/cli/program.js";
import {
  HOST_FLAGS,
  type HostFlagsRecord,
  hostArgsOf,
  NOT_PASSED_TO_HOSTS,
} from "../../src/host/host-args.js";
import { tuiHostArgs } from "../../src/tui/main.js";

function program(): Command {
  const io = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() };
  return buildProgram(io, () => {});
}

function optionsOf(cmd: Command): { key: string; long: string }[] {
  return cmd.options
    .filter((o) => o.long !== "--help" && o.long !== "--version")
    .map((o) => ({ key: o.attributeName(), long: o.long ?? "" }));
}

/** A flags record with `key` set to a value of its kind. */
function withOne(key: keyof HostFlagsRecord): HostFlagsRecord {
  const entry = HOST_FLAGS.find((f) => f.key === key);
  if (!entry) throw new Error(`no entry for ${key}`);
  const value = entry.kind === "switch" ? true : entry.kind === "list" ? ["v1", "v2"] : "7";
  return { [key]: value } as HostFlagsRecord;
}

/** The words `args` holds for `flag` ("--allow-net=X" counts as --allow-net). */
function wordsFor(args: string[], flag: string): number {
  return args.filter((a) => a === flag || a.startsWith(`${flag}=`)).length;
}

describe("the flags a new host is started with", () => {
  const run = program().commands.find((c) => c.name() === "run");

  it("covers every option of relm run: passed on, or listed as not passed with a reason", () => {
    expect(run).toBeDefined();
    const passed = new Set<string>(HOST_FLAGS.map((f) => f.key));
    const options = optionsOf(run as Command);
    expect(options.length).toBeGreaterThan(20);
    for (const { key, long } of options) {
      const known = passed.has(key) || key in NOT_PASSED_TO_HOSTS;
      expect(known, `relm run ${long} is neither passed to hosts nor listed in NOT_PASSED_TO_HOSTS`).toBe(
        true,
      );
      if (passed.has(key)) expect(HOST_FLAGS.find((f) => f.key === key)?.flag).toBe(long);
    }
    // No stale entries: everything listed is an option of relm run.
    const keys = new Set(options.map((o) => o.key));
    for (const key of [...passed, ...Object.keys(NOT_PASSED_TO_HOSTS)]) expect(keys.has(key), key).toBe(true);
  });

  it("writes each flag as the host's command line expects it", () => {
    for (const { key, flag, kind } of HOST_FLAGS) {
      const args = hostArgsOf(withOne(key));
      expect(wordsFor(args, flag), flag).toBe(kind === "list" ? 2 : 1);
      if (kind === "value") expect(args).toEqual([flag, "7"]);
    }
    expect(hostArgsOf({ allowNet: ["*", "pypi.org:443"] })).toEqual([
      "--allow-net=*",
      "--allow-net=pypi.org:443",
    ]);
    expect(hostArgsOf({ sandbox: false, learn: false, var: [] })).toEqual([]);
  });

  it("gives the terminal UI's hosts every session flag of relm itself (--sandbox, --kernel, --allow-web...)", () => {
    const rootOnly = new Set(["continue", "resume"]);
    for (const { key, long } of optionsOf(program())) {
      if (rootOnly.has(key)) continue;
      const args = tuiHostArgs(withOne(key as keyof HostFlagsRecord));
      expect(wordsFor(args, long), `the terminal UI drops ${long}`).toBeGreaterThan(0);
    }
    // Per-task flags are asked for per session in the UI, never given to every session it starts.
    expect(tuiHostArgs({ gate: ["true"], goal: "g", autonomous: true } as HostFlagsRecord)).toEqual([]);
  });

  it("gives relm acp's and relm mcp serve's hosts the session flags, budgets only when asked", () => {
    const flags: HostFlagsRecord = { sandbox: true, kernel: "local", maxTurns: "3", var: ["A=1"] };
    expect(acpHostArgs(flags, { budgets: true })).toEqual([
      "--max-turns",
      "3",
      "--kernel",
      "local",
      "--sandbox",
    ]);
    expect(acpHostArgs(flags, { budgets: false })).toEqual(["--kernel", "local", "--sandbox"]);
  });
});
