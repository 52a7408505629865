// .ci/needs, which .ci/run asks what to install: the interpreters the tests' kernels run must each have
// IPython. On a fresh machine a user's pyenv python3 had it while the system's /usr/bin/python3, which ssh
// and container kernels run, had not, and python3-ipython was skipped (issue 19). Interpreters here are
// real: the one relm finds, Debian's python3 without its site packages (as it is before python3-ipython
// is installed), and a venv made without IPython.
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir, testPython } from "../kernel/helpers.js";
import { ROOT } from "../support/cli.js";

const exec = promisify(execFile);
const NEEDS = path.join(ROOT, ".ci/needs");
const debianPython = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : undefined;

/** A directory holding only `python3`: a link to `target`, or a script with `script` as its body. */
async function pathWith(python: { target: string } | { script: string }): Promise<string> {
  const dir = path.join(await tempDir("relm-ci-needs-"), "bin");
  mkdirSync(dir);
  const file = path.join(dir, "python3");
  if ("target" in python) symlinkSync(python.target, file);
  else {
    writeFileSync(file, `#!/bin/sh\n${python.script}\n`);
    chmodSync(file, 0o755);
  }
  return dir;
}

async function needs(
  command: "packages" | "verify",
  pathDir: string,
  defaultPathDir: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: pathDir, RELM_CI_DEFAULT_PATH: defaultPathDir };
  return exec("/bin/bash", [NEEDS, command], { env }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );
}

describe.runIf(debianPython)(".ci/needs", () => {
  it("installs python3-ipython when the system's python3 lacks it, though python3 on PATH has it", async () => {
    const withIpython = (await testPython()).path;
    const userPath = await pathWith({ target: withIpython });
    // Debian's interpreter without its dist-packages: what ssh and containers find before the install.
    const bareSystem = await pathWith({ script: `exec ${debianPython} -S "$@"` });
    const fresh = await needs("packages", userPath, bareSystem);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout.split("\n")).toContain("python3-ipython");

    // Once both have IPython (as after an earlier run's install), nothing is installed for it again.
    const kept = await needs("packages", userPath, await pathWith({ target: withIpython }));
    expect(kept.stdout.split("\n")).not.toContain("python3-ipython");
    expect((await needs("verify", userPath, userPath)).code).toBe(0);
  });

  it("verify names an interpreter without IPython that apt cannot serve (a venv on PATH)", async () => {
    const withIpython = (await testPython()).path;
    const venv = path.join(await tempDir("relm-ci-venv-"), "venv");
    await exec(withIpython, ["-m", "venv", "--without-pip", venv]);
    const venvPath = path.join(venv, "bin");
    const systemOk = await pathWith({ target: withIpython });
    // Not Debian's interpreter: python3-ipython would not help it, so it is not asked for.
    expect((await needs("packages", venvPath, systemOk)).stdout.split("\n")).not.toContain("python3-ipython");
    const verified = await needs("verify", venvPath, systemOk);
    expect(verified.code).toBe(1);
    expect(verified.stderr).toContain(
      `${path.join(venvPath, "python3")} (python3 on PATH, run by local and cmd: kernels) cannot import IPython`,
    );
    expect(verified.stderr).toContain("pip install ipython");
  });
});
