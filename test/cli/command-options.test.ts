// collect (cli/command-options.ts) is the one collector of repeatable options: declared with a default
// of [] (the option table's lists, `relm mcp add -e`) and without one (`relm harness verify --gate`,
// which stays undefined when not given, so the session's own gates apply and the help shows no default).
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { collect } from "../../src/cli/command-options.js";

function parsed(declare: (cmd: Command) => Command, argv: string[]): Record<string, unknown> {
  const cmd = declare(new Command("x").exitOverride());
  cmd.parse(argv, { from: "user" });
  return cmd.opts();
}

describe("collect", () => {
  it("keeps every value of a repeated option in order, with a default of [] or none", () => {
    const withDefault = (cmd: Command) => cmd.option("--gate <command>", "a gate", collect, []);
    const without = (cmd: Command) => cmd.option("--gate <command>", "a gate", collect);
    expect(parsed(withDefault, ["--gate", "a", "--gate", "b"]).gate).toEqual(["a", "b"]);
    expect(parsed(without, ["--gate", "a", "--gate", "b"]).gate).toEqual(["a", "b"]);
    expect(parsed(withDefault, []).gate).toEqual([]);
    expect(parsed(without, []).gate).toBeUndefined();
    expect(without(new Command("x")).helpInformation()).not.toContain("default");
  });
});
