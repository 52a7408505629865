// A real interpreter without IPython, as a user's venv or a bare system Python is: a venv made without
// pip (and without the system's site packages) from the interpreter relm finds here. Kernels started
// with it run cells with plain exec (python/relm/engine_plain.py), where `!cmd` is a syntax error.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { findPython } from "../../src/kernel/index.js";
import { cleanEnv } from "./cli.js";

const exec = promisify(execFile);

/** Makes the venv at `dir/name` and returns its python's path; throws if it can import IPython. */
export async function venvWithoutIpython(dir: string, name = "venv-no-ipython"): Promise<string> {
  const base = await findPython(cleanEnv());
  const venv = join(dir, name);
  await exec(base.path, ["-m", "venv", "--without-pip", venv]);
  const python = join(venv, "bin", "python3");
  const has = await exec(python, ["-c", "import IPython"]).then(
    () => true,
    () => false,
  );
  if (has) throw new Error(`${python} can import IPython: not a Python without it`);
  return python;
}
