import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { RELM_PYTHON_DIR } from "./paths.js";

/**
 * Compiles relm's own Python package to bytecode for `python` (called at each probe, cached or not; it
 * compiles only when a module has no bytecode, or older bytecode than its source), so that kernels stop
 * compiling ~300 KB of source at every start (~46 ms of a 198 ms template start). Python would write
 * these files itself, but a sandboxed kernel sees the package read-only and many environments set
 * PYTHONDONTWRITEBYTECODE, so without this they never exist.
 *
 * Checked-hash files: the interpreter compares them with the source at each import, so an edited or
 * upgraded source is never run stale (npm resets file times, which would fool timestamp files).
 * Runs in the background (the session does not wait for it) and quietly: a package folder the user
 * cannot write only keeps the old cost. `-I` and the prelude keep a module planted in the current
 * folder out of this host-side run, as for every `python -c` relm runs.
 */
export function precompileRelm(
  python: string,
  version: string,
  prelude: string,
  pkg: string = path.join(RELM_PYTHON_DIR, "relm"),
): void {
  // After this tick: the check is ~1.5 ms of stats at every kernel's start, off its path.
  setImmediate(() => compileIfStale(python, version, prelude, pkg)).unref();
}

function compileIfStale(python: string, version: string, prelude: string, pkg: string): void {
  // CPython's tag (sys.implementation.cache_tag); another implementation only compiles again.
  const [major, minor] = version.split(".");
  if (compiled(pkg, `cpython-${major}${minor}`)) return;
  const script =
    `${prelude}import compileall, py_compile\n` +
    `compileall.compile_dir(sys.argv[1], quiet=2, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)`;
  try {
    const child = spawn(python, ["-I", "-c", script, pkg], {
      cwd: path.dirname(pkg),
      stdio: "ignore",
    });
    child.on("error", () => {});
    child.unref();
  } catch {
    // spawn itself failed: kernels compile in memory, as before
  }
}

/**
 * Whether every module of relm already has bytecode for this interpreter (whoever wrote it), none older
 * than its source. An older one is stale (a checkout pulled, a source edited): the hash check keeps it
 * from running, but a kernel that cannot write bytecode would compile that module at every start.
 */
function compiled(pkg: string, cacheTag: string): boolean {
  const stale = (py: string, pyc: string): boolean => {
    const made = statSync(pyc, { throwIfNoEntry: false });
    return made === undefined || made.mtimeMs < statSync(py).mtimeMs;
  };
  const missing = (dir: string): boolean =>
    readdirSync(dir, { withFileTypes: true }).some((e) =>
      e.isDirectory()
        ? e.name !== "__pycache__" && missing(path.join(dir, e.name))
        : e.name.endsWith(".py") &&
          stale(
            path.join(dir, e.name),
            path.join(dir, "__pycache__", `${e.name.slice(0, -3)}.${cacheTag}.pyc`),
          ),
    );
  try {
    return !missing(pkg);
  } catch {
    return true; // the package cannot be listed: nothing to do here
  }
}
