// What a session remembers of its flags (src/host/session-flags.ts): what a host started again without
// flags runs with, and how flags given when resuming replace it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rememberFlags, withRememberedFlags } from "../../src/host/session-flags.js";

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function homeWith(id: string): string {
  const home = mkdtempSync(join(tmpdir(), "relm-flags-"));
  homes.push(home);
  mkdirSync(join(home, "sessions", id), { recursive: true });
  return home;
}

describe("remembered session flags", () => {
  it("keeps the session's flags (0600), not the ones of one start, with MCP files made absolute", () => {
    const home = homeWith("s1");
    rememberFlags(
      home,
      "s1",
      {
        model: "m1",
        kernel: "ssh://box/work",
        sandbox: true,
        allowNet: ["pypi.org"],
        maxCost: "2",
        cellTimeout: "30",
        gate: ["npm test"],
        autonomous: true,
        mcpConfig: ["mcp.json"],
        var: ["data=@big.csv"],
        goal: "ship it",
        interactive: true,
        unattended: true,
        passEnv: [],
      },
      "/project",
    );
    const file = join(home, "sessions", "s1", "flags.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      model: "m1",
      maxCost: "2",
      cellTimeout: "30",
      kernel: "ssh://box/work",
      mcpConfig: ["/project/mcp.json"],
      sandbox: true,
      allowNet: ["pypi.org"],
      gate: ["npm test"],
      autonomous: true,
    });
  });

  it("fills in every flag not given now; a flag given now replaces the remembered one", () => {
    const home = homeWith("s2");
    rememberFlags(home, "s2", { model: "m1", sandbox: true, maxDepth: "0", allowWeb: ["a.org"] }, "/p");
    // commander gives [] for a list that was not given: that is not a flag given now.
    expect(withRememberedFlags(home, "s2", { allowWeb: [], asHost: "s2" } as never)).toEqual({
      asHost: "s2",
      model: "m1",
      sandbox: true,
      maxDepth: "0",
      allowWeb: ["a.org"],
    });
    expect(withRememberedFlags(home, "s2", { model: "m2", allowWeb: ["b.org"] })).toMatchObject({
      model: "m2",
      allowWeb: ["b.org"],
      sandbox: true,
    });
  });

  it("a session without the file, or with a damaged one, runs with the flags given now", () => {
    const home = homeWith("s3");
    expect(withRememberedFlags(home, "s3", { model: "m" })).toEqual({ model: "m" });
    const file = join(home, "sessions", "s3", "flags.json");
    writeFileSync(file, "{not json");
    expect(withRememberedFlags(home, "s3", {})).toEqual({});
    // Values of the wrong kind are ignored one by one; so is a flag that is never remembered.
    writeFileSync(
      file,
      JSON.stringify({ model: 3, sandbox: "yes", gate: ["ok", 1], kernel: "cmd:x", var: ["a=1"] }),
    );
    expect(withRememberedFlags(home, "s3", {})).toEqual({ kernel: "cmd:x" });
  });
});
