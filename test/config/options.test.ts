// The one option table (src/config/options.ts): the commander options every command gets from it, the
// checks of its values, what a session remembers and hosts inherit, and the spec file a new host reads.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command, Option } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.js";
import { UsageError } from "../../src/config/errors.js";
import { checkNumbers, flagOf, numberOf, OPTIONS, type OptionDef } from "../../src/config/options.js";
import { mergeSpec, specFromJson, takeSpecFile, writeSpecFile } from "../../src/config/session-spec.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "relm-options-"));
  dirs.push(dir);
  return dir;
}

function commands(): Map<string, Command> {
  const io = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() };
  const program = buildProgram(io, () => {});
  const mcp = program.commands.find((c) => c.name() === "mcp") as Command;
  const all = new Map<string, Command>([["relm", program]]);
  for (const c of [...program.commands, ...mcp.commands]) all.set(c.name(), c);
  return all;
}

/** The commands that carry each section (and so every option of it). */
const CARRIERS: Record<string, string[]> = {
  model: ["relm", "run", "doctor", "login", "acp", "serve"],
  session: ["relm", "run", "acp", "serve"],
  run: ["run"],
  hosts: ["acp", "serve"],
};

describe("the option table", () => {
  const all = commands();

  it("makes each option of every command that carries it, with the same words, help and default", () => {
    for (const def of OPTIONS as readonly OptionDef[]) {
      for (const section of def.sections) {
        for (const name of CARRIERS[section] ?? []) {
          const option = all.get(name)?.options.find((o) => o.attributeName() === def.key) as Option;
          expect(option, `${name} ${def.flags}`).toBeDefined();
          expect(option.flags).toBe(def.flags);
          const help = typeof def.help === "string" ? def.help : def.help[name];
          if (!def.hidden) expect(option.description, `${name} ${def.flags}`).toBe(help);
          expect(option.hidden).toBe(def.hidden === true);
          expect(option.defaultValue).toEqual(def.kind === "list" ? [] : undefined);
        }
      }
    }
    // The same --idle-timeout says whose host exits, per command.
    const idle = (name: string) =>
      all.get(name)?.options.find((o) => o.long === "--idle-timeout")?.description;
    expect(new Set(["run", "acp", "serve"].map(idle)).size).toBe(3);
  });

  it("refuses a bad number naming its flag (a usage error), and reads a good one", () => {
    const numeric = OPTIONS.filter((o) => "parse" in o);
    expect(numeric.map((o) => o.key).sort()).toEqual(
      [
        "cellTimeout",
        "gateTimeout",
        "idleTimeout",
        "learnVerifyShare",
        "maxCost",
        "maxDepth",
        "maxGateFailures",
        "maxTime",
        "maxTokens",
        "maxTurns",
      ].sort(),
    );
    for (const def of numeric) {
      const flag = flagOf(def);
      for (const bad of ["-1", "abc", "1.5x"]) {
        const check = () => numberOf({ [def.key]: bad }, def.key);
        expect(check, `${flag} ${bad}`).toThrow(UsageError);
        expect(check).toThrow(flag);
        expect(check).toThrow(`"${bad}"`);
      }
      if (def.key === "learnVerifyShare") expect(numberOf({ [def.key]: "0.3" }, def.key)).toBe(0.3);
      else expect(numberOf({ [def.key]: "3" }, def.key)).toBe(def.key === "maxTime" ? 3000 : 3);
    }
    expect(numberOf({ maxCost: "$2.5" }, "maxCost")).toBe(2.5);
    expect(numberOf({ maxDepth: "0" }, "maxDepth")).toBe(0);
    // A share: 0 turns the background replay check off; more than all of it is no share.
    expect(numberOf({ learnVerifyShare: "0" }, "learnVerifyShare")).toBe(0);
    expect(() => numberOf({ learnVerifyShare: "1.5" }, "learnVerifyShare")).toThrow(
      '--learn-verify-share must be a fraction from 0 to 1 (e.g. 0.2), got "1.5"',
    );
    expect(() => numberOf({ maxTurns: "2.5" }, "maxTurns")).toThrow(
      "--max-turns must be a positive whole number",
    );
    expect(() => checkNumbers({ model: "m", cellTimeout: "0" })).toThrow(
      '--cell-timeout must be a positive number, got "0"',
    );
    expect(() => checkNumbers({ cellTimeout: "0" }, ["maxTurns"])).not.toThrow();
  });

  it("remembers the session's options, not one start's; never passes on how a process was started", () => {
    const remembered = OPTIONS.filter((o) => o.remember).map((o) => o.key);
    for (const key of [
      "var",
      "goal",
      "interactive",
      "unattended",
      "awaitClient",
      "continueWork",
      "json",
      "detach",
      "resume",
      "asHost",
      "adopt",
      "spec",
    ])
      expect(remembered, key).not.toContain(key);
    for (const key of [
      "model",
      "kernel",
      "sandbox",
      "allowNet",
      "maxCost",
      "gate",
      "autonomous",
      "mcpConfig",
      "idleTimeout",
    ])
      expect(remembered, key).toContain(key);
    const never = OPTIONS.filter((o) => typeof o.inherit === "object").map((o) => o.key);
    expect(never.sort()).toEqual(["adopt", "asHost", "detach", "json", "resume", "spec"]);
    // What a session remembers is always something its hosts could be handed.
    for (const def of OPTIONS) if (def.remember) expect(typeof def.inherit, def.key).toBe("string");
  });

  it("round-trips a spec through its file (0600, removed once read)", () => {
    const path = join(tempDir(), "spec.json");
    const spec = {
      model: "m",
      maxTurns: "3",
      sandbox: true,
      allowNet: ["*"],
      var: ["A=@/f"],
      awaitClient: true,
    };
    writeSpecFile(path, spec);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(spec);
    expect(takeSpecFile(path)).toEqual(spec);
    expect(() => statSync(path)).toThrow();
  });

  it("refuses a spec file that does not fit, naming the key", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.json"), JSON.stringify({ maxTurns: 3 }));
    expect(() => takeSpecFile(join(dir, "a.json"))).toThrow(/maxTurns/);
    writeFileSync(join(dir, "b.json"), JSON.stringify({ asHost: "x" }));
    expect(() => takeSpecFile(join(dir, "b.json"))).toThrow(/asHost/);
    // A usage error naming the flag and the file, never a stack trace.
    expect(() => takeSpecFile(join(dir, "missing.json"))).toThrow(UsageError);
    expect(() => takeSpecFile(join(dir, "missing.json"))).toThrow(/^--spec .*missing\.json/);
  });

  it("merges: what is given now wins, the rest comes from the base; damaged values are dropped one by one", () => {
    const base = specFromJson(
      { model: "m1", gate: ["a", 1], kernel: "cmd:x", sandbox: "yes", learn: true },
      () => true,
    );
    expect(base).toEqual({ model: "m1", kernel: "cmd:x", learn: true });
    expect(mergeSpec({ model: "m2", allowWeb: [] }, base)).toEqual({
      model: "m2",
      allowWeb: [],
      kernel: "cmd:x",
      learn: true,
    });
  });
});
