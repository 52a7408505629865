import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findPython, HOST_PYTHON_PRELUDE, RELM_PYTHON_DIR } from "../../src/kernel/index.js";
import { precompileRelm } from "../../src/kernel/precompile.js";
import { eventually } from "../support/wait.js";
import { PYTHON_CACHE_DIR, tempDir } from "./helpers.js";

/** Every .py below `pkg` with the bytecode file `tag` would load, or the ones that have none. */
function sources(pkg: string, tag: string): { py: string; pyc: string }[] {
  return readdirSync(pkg, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".py") && !f.includes("__pycache__"))
    .map((f) => {
      const py = path.join(pkg, f);
      return { py, pyc: path.join(path.dirname(py), "__pycache__", `${path.basename(f, ".py")}.${tag}.pyc`) };
    });
}

describe("relm's Python package compiled once per interpreter", () => {
  it("writes checked-hash bytecode for every module, which a kernel's import then uses, and never runs stale", async () => {
    const python = await findPython(process.env, PYTHON_CACHE_DIR);
    const tag = execFileSync(python.path, ["-c", "import sys; print(sys.implementation.cache_tag)"], {
      encoding: "utf8",
    }).trim();
    const root = await tempDir();
    const pkg = path.join(root, "relm");
    cpSync(path.join(RELM_PYTHON_DIR, "relm"), pkg, {
      recursive: true,
      filter: (src) => !src.includes("__pycache__"),
    });
    const upgraded = path.join(pkg, "upgraded.py");
    writeFileSync(upgraded, "VALUE = 1\n");
    const files = sources(pkg, tag);
    expect(files.length).toBeGreaterThan(30);
    expect(files.some((f) => existsSync(f.pyc))).toBe(false);

    precompileRelm(python.path, python.version, HOST_PYTHON_PRELUDE, pkg);
    expect(await eventually(() => files.every((f) => existsSync(f.pyc)), 30_000)).toBe(true);
    // Flags word 0b11: hash-based and checked against the source at each import (PEP 552).
    for (const f of files) expect(readFileSync(f.pyc).readUInt32LE(4)).toBe(0b11);

    // An interpreter that may not write bytecode (a sandbox's read-only package, PYTHONDONTWRITEBYTECODE)
    // loads these files: -v names the file each code object came from.
    const env = { ...process.env, PYTHONPATH: root, PYTHONDONTWRITEBYTECODE: "1" };
    const said = spawnSync(python.path, ["-v", "-c", "import relm.toolkit"], {
      env,
      encoding: "utf8",
    }).stderr;
    const toolkitPyc = files.find((f) => f.py.endsWith(path.join("toolkit", "__init__.py")))!.pyc;
    expect(said).toContain(`code object from '${toolkitPyc}'`);

    // A source changed after the compile, same size and stamped with the same old time (npm sets every
    // installed file's time to one date) is what runs: a timestamp-checked file would load the old code.
    const changed = execFileSync(python.path, ["-c", "import relm.upgraded as u; print(u.VALUE)"], {
      env,
      encoding: "utf8",
    }).trim();
    expect(changed).toBe("1");
    const { mtime } = statSync(upgraded);
    writeFileSync(upgraded, "VALUE = 2\n");
    utimesSync(upgraded, mtime, mtime);
    const now = execFileSync(python.path, ["-c", "import relm.upgraded as u; print(u.VALUE)"], {
      env,
      encoding: "utf8",
    }).trim();
    expect(now).toBe("2");

    // A source edited after the compile (a pulled checkout: a newer time) is compiled again at the next
    // call, so kernels that cannot write bytecode stop compiling it at every start.
    const upgradedPyc = files.find((f) => f.py === upgraded)!.pyc;
    const before = readFileSync(upgradedPyc);
    writeFileSync(upgraded, "VALUE = 3\n");
    utimesSync(upgraded, new Date(), new Date(Date.now() + 60_000));
    precompileRelm(python.path, python.version, HOST_PYTHON_PRELUDE, pkg);
    expect(await eventually(() => !readFileSync(upgradedPyc).equals(before), 30_000)).toBe(true);
  }, 90_000);

  it("compiles again at a cached probe when relm's bytecode is older than its source (an upgrade, a pull)", async () => {
    const cache = await tempDir();
    const python = await findPython(process.env, cache);
    const tag = `cpython-${python.version.split(".").slice(0, 2).join("")}`;
    const py = path.join(RELM_PYTHON_DIR, "relm", "plan.py");
    const pyc = path.join(RELM_PYTHON_DIR, "relm", "__pycache__", `plan.${tag}.pyc`);
    const fresh = () => existsSync(pyc) && statSync(pyc).mtimeMs >= statSync(py).mtimeMs;
    // The probes' own compiles (this one's, an earlier test's) are over: each recompiles every module.
    const compiling = () =>
      readdirSync("/proc").some((pid) => {
        try {
          return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("compile_dir");
        } catch {
          return false; // gone
        }
      });
    await new Promise((resolve) => setImmediate(resolve)); // after the probe's check (it runs on an immediate)
    expect(await eventually(() => fresh() && !compiling(), 30_000)).toBe(true);
    utimesSync(pyc, 1, 1); // older than its source: what a pulled or edited plan.py leaves
    expect((await findPython(process.env, cache)).cached).toBe(true);
    expect(await eventually(fresh, 30_000)).toBe(true);
  }, 90_000);

  it("never runs an interpreter sandboxed code could have written, on the host, to compile", async () => {
    const project = await tempDir();
    const markers = await tempDir();
    // Answers the probe (confined by `wrap` in a real session) as a Python nothing is compiled for yet,
    // and leaves a marker when run any other way.
    const fake = (marker: string) => {
      const file = path.join(project, `python3-${marker}`);
      const answer = JSON.stringify({ path: file, version: "3.99.0", ok: true, ipython: "9.0" });
      writeFileSync(
        file,
        `#!/bin/sh\nif [ "$1" = "-c" ]; then echo '${answer}'; exit 0; fi\ntouch ${path.join(markers, marker)}\n`,
        { mode: 0o755 },
      );
      return file;
    };
    const trust = { untrusted: [project], wrap: (file: string, args: string[]) => ({ file, args }) };
    const sandboxed = await findPython({ ...process.env, RELM_PYTHON: fake("sandboxed") }, undefined, trust);
    expect(sandboxed.version).toBe("3.99.0");
    // The same file in a project the user trusts (no sandbox) is compiled with: the check could fail.
    await findPython({ ...process.env, RELM_PYTHON: fake("trusted") });
    expect(await eventually(() => existsSync(path.join(markers, "trusted")))).toBe(true);
    expect(readdirSync(markers)).toEqual(["trusted"]);
  });
});
