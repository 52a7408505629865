// Every command of the built program, called with bad arguments, must fail as a user error: exit 1 or
// 2, stderr starting with `relm: `, no stack trace, no "internal error", and no model request made.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command, Option } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, kernelsLeft, ROOT, runRelm } from "../../support/cli.js";
import { type Rig, startRig } from "../../support/scripted.js";

type BuildProgram = typeof import("../../../src/cli/program.js").buildProgram;

/** Every command path of the built program (hidden ones and `help` left out), the root as []. */
async function commandsOfBuild(): Promise<{ path: string[]; cmd: Command }[]> {
  const url = pathToFileURL(join(ROOT, "dist/cli/program.js")).href;
  const { buildProgram } = (await import(url)) as { buildProgram: BuildProgram };
  const io = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: ROOT };
  const program = buildProgram(io, () => {});
  const walk = (cmd: Command, path: string[]): { path: string[]; cmd: Command }[] => [
    { path, cmd },
    ...cmd
      .createHelp()
      .visibleCommands(cmd)
      .filter((c) => c.name() !== "help")
      .flatMap((c) => walk(c, [...path, c.name()])),
  ];
  return walk(program, []);
}

const NUMERIC = /^<(n|seconds|usd|duration|turn)>$/;
const NOWHERE = "/nonexistent-relm-dir/file";

/** A valid value for each argument, so that the bad part of a command line is the one under test. */
function fill(cmd: Command, id: string): string[] {
  return cmd.registeredArguments
    .filter((a) => a.required || a.name() === "id" || a.name() === "task")
    .map((a) => {
      const name = a.name();
      if (name === "id") return id;
      if (name === "kind") return "memory";
      if (name === "file") return NOWHERE;
      if (["text", "prompt", "content", "task"].includes(name)) return "hello";
      return "zzzzzzzz";
    });
}

function valueName(option: Option): string {
  return /<[^>]+>/.exec(option.flags)?.[0] ?? "";
}

/** The bad command lines for one command. */
function badCalls(path: string[], cmd: Command, ids: { real: string; ambiguous: string }): string[][] {
  const calls: string[][] = [[...path, "--no-such-option"]];
  const args = cmd.registeredArguments;
  const hasId = args[0]?.name() === "id";
  if (args.some((a) => a.required)) calls.push([...path]);
  if (path.length > 0 && !args.some((a) => a.variadic)) {
    calls.push([...path, ...fill(cmd, ids.real), "extra", "words", "here"]);
  }
  if (hasId) {
    calls.push([...path, ...fill(cmd, "xxxxxxxx")]);
    calls.push([...path, ...fill(cmd, ids.ambiguous)]);
  }
  for (const option of cmd.options) {
    const value = valueName(option);
    if (!value || option.hidden) continue;
    const flag = option.long ?? option.short ?? "";
    const valid = path.length === 0 ? [] : fill(cmd, ids.real);
    // A value missing at the end of the line, and a bad value where one is checked.
    calls.push([...path, ...valid, flag]);
    // An empty value (`--gate "$UNSET"`) is a mistake, not the option left out.
    calls.push([...path, flag, "", ...valid]);
    if (NUMERIC.test(value)) calls.push([...path, flag, "-1", ...valid]);
    if (option.argChoices) calls.push([...path, flag, "bogus", ...valid]);
  }
  return calls;
}

/** Command lines no rule above produces: bad values only some commands check, and unreadable files. */
function specialCalls(ids: { real: string; ambiguous: string }): string[][] {
  return [
    ["agnets"],
    ["agnets", "--json"],
    ["harness", "lgo"],
    ["schedule", "ad"],
    ["harness"],
    ["schedule"],
    ["help", "nosuchcommand"],
    ["--resume"],
    // The root's --resume takes an optional id; an empty one is not "pick a session".
    ["--resume", ""],
    ["-r", " "],
    ["--continue", "--resume", ids.real],
    ["--resume", "xxxxxxxx"],
    ["--resume", ids.ambiguous],
    ["run", "--max-time", "5 fortnights", "hello"],
    // Provider names are checked against the presets (no fixed choices for commander to check).
    ["run", "--provider", "bogus", "hello"],
    ["run", "--provider", "openrouterr", "hello"],
    ["models", "--provider", "bogus"],
    ["run", "--var", `data=@${NOWHERE}`, "hello"],
    ["run", "--var", "not a name=1", "hello"],
    ["run", "--resume", "xxxxxxxx"],
    ["run", "--resume", ids.ambiguous],
    ["run", "--detach", "--resume", "xxxxxxxx"],
    ["export", ids.real, "-o", NOWHERE],
    ["schedule", "add", ids.real, "--every", "5 fortnights", "hello"],
    ["schedule", "add", ids.real, "--at", "not a time", "hello"],
    ["schedule", "add", ids.real, "--cron", "not a cron", "hello"],
    ["schedule", "add", ids.real, "hello"],
    ["schedule", "cancel", "zzzzzzzz"],
    ["schedule", "list", "xxxxxxxx"],
    ["undo", ids.real, "--to", "abc"],
    ["refine", ids.real, "--dry-run", "--apply"],
    ["harness", "add", "nonsense", "hello"],
    ["harness", "rm", "zzzzzzzz"],
    ["harness", "show", "zzzzzzzz"],
    ["harness", "revert", "zzzzzzzz"],
    ["harness", "list", "--scope", "session"],
    ["harness", "list", "--session", "xxxxxxxx"],
    ["harness", "export", "-o", NOWHERE],
    ["harness", "import", NOWHERE],
    ["login", "--model", ""],
    ["login", "--api-key-stdin", "--model", "m"],
  ];
}

/** One in this many command lines is also run through the binary. */
const SAMPLE = 10;

/** Runs `calls` one after another in one Node process (test/support/cli-batch.mjs). */
async function runBatch(calls: string[][], rig: Rig): Promise<CliResult[]> {
  const dir = mkdtempSync(join(tmpdir(), "relm-cli-batch-"));
  try {
    const callsFile = join(dir, "calls.json");
    const resultsFile = join(dir, "results.json");
    writeFileSync(callsFile, JSON.stringify(calls));
    const script = join(ROOT, "test/support/cli-batch.mjs");
    const done = await runRelm([script, callsFile, resultsFile], {
      env: rig.env,
      cwd: rig.cwd,
      bin: process.execPath,
      timeoutMs: 120_000,
    });
    expect(done.code, done.stderr).toBe(0);
    return JSON.parse(readFileSync(resultsFile, "utf8")) as CliResult[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function checkFailure(args: string[], result: CliResult): void {
  const what = `relm ${args.map((a) => JSON.stringify(a)).join(" ")}\nstderr: ${result.stderr}`;
  expect([1, 2], what).toContain(result.code);
  expect(result.stderr, what).toMatch(/^relm: \S/);
  expect(result.stderr, what).not.toMatch(/^\s+at /m);
  expect(result.stderr, what).not.toContain("internal error");
}

describe("every command with bad arguments", () => {
  let rig: Rig;
  let ids: { real: string; ambiguous: string };
  let commands: { path: string[]; cmd: Command }[];

  beforeAll(async () => {
    rig = await startRig("openai", { script: [{ text: "done" }] });
    const first = await runRelm(["run", "--json", "hello"], { env: rig.env, cwd: rig.cwd });
    expect(first.code, first.stderr).toBe(0);
    const real = (JSON.parse(first.stdout.split("\n")[0] as string) as { id: string }).id;
    // Two more sessions sharing a prefix no real id has: "zy" is ambiguous.
    for (const id of ["zy000001", "zy000002"]) mkdirSync(join(rig.home, "sessions", id), { recursive: true });
    ids = { real, ambiguous: "zy" };
    commands = await commandsOfBuild();
  });

  afterAll(async () => {
    try {
      expect(await kernelsLeft(rig.home)).toEqual([]);
    } finally {
      await rig.close();
    }
  });

  it("finds the commands to check in the built program", () => {
    const names = commands.map((c) => c.path.join(" "));
    for (const name of [
      "",
      "run",
      "attach",
      "logs",
      "schedule add",
      "harness revert",
      "checkpoints",
      "login",
    ])
      expect(names).toContain(name);
  });

  it("fails every one as a user error, with no model request", async () => {
    const calls = [...commands.flatMap(({ path, cmd }) => badCalls(path, cmd, ids)), ...specialCalls(ids)];
    expect(calls.length).toBeGreaterThan(100);
    const requestsBefore = rig.model.requests.length;
    // All of them in one process (test/support/cli-batch.mjs runs what relm.cjs runs after its entry
    // point); one in every SAMPLE through the binary too, which must answer the same.
    const results = await runBatch(calls, rig);
    for (const [i, args] of calls.entries()) checkFailure(args, results[i] as CliResult);
    const sample = calls.filter((_, i) => i % SAMPLE === 0);
    for (let i = 0; i < sample.length; i += 4) {
      const batch = sample.slice(i, i + 4);
      const binary = await Promise.all(
        batch.map((args) => runRelm(args, { env: rig.env, cwd: rig.cwd, timeoutMs: 30_000 })),
      );
      for (const [j, args] of batch.entries()) {
        const inBatch = results[calls.indexOf(args)] as CliResult;
        expect({ code: binary[j]?.code, stderr: binary[j]?.stderr }, `relm ${args.join(" ")}`).toEqual({
          code: inBatch.code,
          stderr: inBatch.stderr,
        });
      }
    }
    expect(rig.model.requests.length).toBe(requestsBefore);
  }, 300_000);

  it("suggests the command a typo meant, at the top level and in groups", async () => {
    for (const [args, line] of [
      [["agnets"], 'relm: unknown command "agnets" — did you mean "agents"?'],
      [["harness", "lgo"], 'relm: unknown command "harness lgo" — did you mean "harness log"?'],
      [["schedule", "ad"], 'relm: unknown command "schedule ad" — did you mean "schedule add"?'],
    ] as const) {
      const result = await runRelm([...args], { env: rig.env, cwd: rig.cwd });
      expect(result.code).toBe(2);
      expect(result.stderr.split("\n")[0]).toBe(line);
    }
    expect(rig.model.requests).toHaveLength(1);
  });

  it("prints a usage line and where to read more for a missing argument", async () => {
    const result = await runRelm(["attach"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "relm: missing argument <id>\nusage: relm attach [options] <id>\nrelm attach --help for more\n",
    );
  });

  it("refuses an empty option value, naming the option, instead of acting as if it were left out", async () => {
    // `--gate ""` was a gate that always passes (sh -c "" exits 0); `--resume ""` started a new session.
    for (const args of [
      ["run", "--gate", "", "hello"],
      ["run", "--resume", "", "hello"],
      ["--resume", ""],
    ]) {
      const result = await runRelm(args, { env: rig.env, cwd: rig.cwd });
      expect(result.code, result.stderr).toBe(2);
      const flag = args.find((a) => a.startsWith("--")) as string;
      expect(result.stderr.split("\n")[0]).toContain(flag);
      expect(result.stderr.split("\n")[0]).toContain("empty");
    }
    expect(rig.model.requests).toHaveLength(1);
  });
});

describe("a blank task", () => {
  it("is refused as a usage error, like an empty one, by run, -p, relm and --detach: no session starts", async () => {
    const rig = await startRig("openai", { script: [{ text: "done" }] });
    try {
      // `relm run "$TASK"` with TASK set to spaces ran a session with an empty title, the model asked nothing.
      for (const args of [
        ["run", "   "],
        ["run", " ", "\t"],
        ["-p", "  "],
        ["  "],
        ["run", "--detach", "  "],
        ["run", ""],
      ]) {
        const result = await runRelm(args, { env: rig.env, cwd: rig.cwd });
        expect(result.code, `relm ${JSON.stringify(args)}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(/^relm: no task given: the task is blank; relm run "what to do"\n$/);
        expect(result.stdout).toBe("");
      }
      expect(rig.model.requests).toHaveLength(0);
      expect(existsSync(join(rig.home, "sessions"))).toBe(false);
    } finally {
      await rig.close();
    }
  });
});
