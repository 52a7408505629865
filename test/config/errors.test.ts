// One base class for the user's errors, recognised whichever copy of its module made the error: a
// detached host loads config/, session/ and host/ unbundled before the CLI bundle loads its own copies.

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { reportError } from "../../src/cli/report-error.js";
import { ConfigError, isUserError, UsageError, UserError, userExitCode } from "../../src/config/errors.js";
import { ROOT } from "../support/cli.js";

type ErrorsModule = typeof import("../../src/config/errors.js");

/** A second, separately loaded copy of the built module, as the bundle holds beside dist/config/. */
async function otherCopy(tag: string): Promise<ErrorsModule> {
  const url = `${pathToFileURL(join(ROOT, "dist/config/errors.js")).href}?copy=${tag}`;
  return (await import(url)) as ErrorsModule;
}

function captured(): { stream: NodeJS.WritableStream; text: () => string } {
  let text = "";
  const write = (s: string): boolean => {
    text += s;
    return true;
  };
  const stream = { write } as unknown as NodeJS.WritableStream;
  return { stream, text: () => text };
}

describe("user errors", () => {
  it("are told apart from relm's own errors, with their exit codes", () => {
    expect(isUserError(new ConfigError("x"))).toBe(true);
    expect(isUserError(new UsageError("x"))).toBe(true);
    expect(isUserError(new Error("x"))).toBe(false);
    expect(isUserError({ message: "x" })).toBe(false);
    expect(isUserError(undefined)).toBe(false);
    expect(userExitCode(new ConfigError("x"))).toBe(1);
    expect(userExitCode(new UsageError("x"))).toBe(2);
    class Bespoke extends UserError {
      override readonly exitCode = 2;
    }
    expect(userExitCode(new Bespoke("x"))).toBe(2);
    expect(new Bespoke("x")).toBeInstanceOf(UserError);
    expect(new Bespoke("x")).not.toBeInstanceOf(ConfigError);
  });

  it("are recognised across two copies of the module, by the check and by instanceof UserError", async () => {
    const a = await otherCopy("a");
    const b = await otherCopy("b");
    expect(a.UserError).not.toBe(b.UserError); // really two copies
    const fromA = new a.UsageError("bad flag");
    expect(fromA instanceof b.UsageError).toBe(false); // what broke name lists and instanceof before
    expect(b.isUserError(fromA)).toBe(true);
    expect(fromA instanceof b.UserError).toBe(true);
    expect(isUserError(fromA)).toBe(true);
    expect(b.userExitCode(fromA)).toBe(2);
    // Subclasses keep the ordinary check: a UsageError is not a ConfigError in any copy.
    expect(fromA instanceof b.ConfigError).toBe(false);
    expect(new b.ConfigError("x") instanceof a.ConfigError).toBe(false);

    const out = captured();
    expect(reportError(new a.ConfigError("fix config.json"), out.stream)).toBe(1);
    expect(out.text()).toBe("relm: fix config.json\n");
  });

  it("prints anything else as an internal error with its stack", () => {
    const out = captured();
    expect(reportError(new TypeError("oops"), out.stream)).toBe(1);
    expect(out.text()).toMatch(/^relm: internal error: TypeError: oops\n\s+at /);
  });
});
