// The session options a front end checks before the session is built (line mode, relm run --detach):
// the option table (config/options.ts) runs every check, its own number checks and those of the
// options it marks as checked above it (cli/option-checks.ts), each error naming the flag.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { checkSessionSpec } from "../../src/cli/option-checks.js";
import { resolveConfig } from "../../src/config/config.js";
import { UsageError } from "../../src/config/errors.js";
import { OPTIONS, type SessionSpec } from "../../src/config/options.js";
import { tempDir } from "../support/cli.js";

/**
 * A RELM_HOME with `config` as its config.json, and a PATH with a `bwrap` that passes relm's trial (a
 * sandboxed mode is checked to work before anything starts; nothing here starts a kernel).
 */
function setting(config: Record<string, unknown> = {}) {
  const dir = tempDir();
  onTestFinished(dir.cleanup);
  const home = join(dir.path, "home");
  const bin = join(dir.path, "bin");
  mkdirSync(home);
  mkdirSync(bin);
  writeFileSync(join(home, "config.json"), JSON.stringify(config));
  writeFileSync(join(bin, "bwrap"), "#!/bin/sh\nexit 0\n");
  chmodSync(join(bin, "bwrap"), 0o755);
  const env = { RELM_HOME: home, PATH: bin };
  const check = (spec: SessionSpec) => () =>
    checkSessionSpec(spec, { cwd: dir.path, env }, resolveConfig(env, spec));
  return { check, cwd: dir.path };
}

describe("checking a session's options before it starts", () => {
  it("each option the table leaves to a layer above is checked there, the error naming its flag", () => {
    expect(OPTIONS.filter((o) => "checkedAbove" in o).map((o) => o.key)).toEqual([
      "var",
      "kernel",
      "mode",
      "allowNet",
      "approve",
      "allowWeb",
    ]);
    const { check, cwd } = setting();
    expect(check({ maxTurns: "0" })).toThrow("--max-turns must be a positive whole number");
    expect(check({ kernel: "gopher://x" })).toThrow(/gopher/);
    expect(check({ var: ["1x=a"] })).toThrow('--var "1x": the name must be a Python identifier');
    expect(check({ var: ["data=@missing.txt"] })).toThrow(`no such file (${join(cwd, "missing.txt")})`);
    expect(check({ allowWeb: ["https://example.com/"] })).toThrow("--allow-web");
    expect(check({ mode: "yolo" })).toThrow('--mode must be plan (read-only), workspace or full, got "yolo"');
    expect(check({ approve: "sometimes" })).toThrow("--approve");
    for (const spec of [{ kernel: "gopher://x" }, { var: ["1x=a"] }, { allowWeb: ["a b"] }, { mode: "yolo" }])
      expect(check(spec)).toThrow(UsageError);
    expect(check({ maxTurns: "3", kernel: "local", var: ["n=1"], allowWeb: ["example.com"] })).not.toThrow();
  });

  it.skipIf(process.platform !== "linux")(
    "--allow-net needs a sandboxed mode, which --mode, --sandbox, --kernel sandbox, the config or the default may give",
    () => {
      // Where the sandbox works the default mode is workspace, which --allow-net shapes.
      expect(setting().check({ allowNet: ["pypi.org"] })).not.toThrow();
      expect(setting({ mode: "full" }).check({ allowNet: ["pypi.org"] })).toThrow(
        "--allow-net applies to a sandboxed kernel",
      );
      expect(setting().check({ allowNet: ["pypi.org"], sandbox: true })).not.toThrow();
      expect(setting().check({ allowNet: ["pypi.org"], kernel: "sandbox" })).not.toThrow();
      expect(setting({ sandbox: "workspace" }).check({ allowNet: ["pypi.org"] })).not.toThrow();
      expect(setting().check({ allowNet: ["pypi.org"], mode: "plan" })).not.toThrow();
      expect(setting().check({ allowNet: ["pypi.org"], mode: "full" })).toThrow(
        "--allow-net applies to a sandboxed kernel",
      );
      expect(setting().check({ allowNet: ["no such host!"], sandbox: true })).toThrow(
        /--allow-net "no such host!"/,
      );
    },
  );
});
