import { execFile } from "node:child_process";
import { readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { makeDirs } from "../config/dirs.js";
import { PythonNotFoundError } from "./errors.js";
import { precompileRelm } from "./precompile.js";
import type { PythonInfo } from "./types.js";
import { which } from "./which.js";

interface FoundPython extends PythonInfo {
  /** Why this interpreter is less than ideal (e.g. RELM_PYTHON without IPython); for `relm doctor`. */
  warning?: string;
  /** True when the answer came from the cache file rather than from probing. */
  cached: boolean;
}

/**
 * How to probe interpreters that sit where untrusted code can write (a sandboxed session's project: an
 * activated `.venv/bin/python3`). Such a candidate is never run on the host as is: `wrap` turns its
 * probe into a confined command (sandbox/index.ts probeConfinement), or, with no `wrap`, it is skipped.
 */
interface ProbeTrust {
  untrusted: readonly string[];
  wrap?: (file: string, args: string[]) => { file: string; args: string[] };
}

const CACHE_FILE = "python.json";
const CACHE_VERSION = 2; // 2: the module listing (PythonInfo.modules)

/**
 * The first lines of every `python -c` relm runs on the host. `-c` puts the current directory (the
 * project, which sandboxed code can write) first on sys.path, so a `json.py` planted there would be
 * what `import json` runs, as the user and outside any sandbox. `sys` is built in: no file can stand in
 * for it. (Python's start-up itself, site and encodings included, does not look there.)
 */
export const HOST_PYTHON_PRELUDE = "import sys\nif sys.path[:1] == ['']: del sys.path[0]\n";

// find_spec + metadata instead of `import IPython`: ~30 ms instead of ~0.5 s per candidate. Also run
// through a remote kernel's launcher by `relm doctor` (probe-remote.ts): one line of JSON on stdout.
const PROBE_FACTS = `${HOST_PYTHON_PRELUDE}import json, importlib.util as u
ok = sys.version_info >= (3, 10)
v = None
if ok and u.find_spec("IPython") is not None:
    try:
        import importlib.metadata as m
        v = m.version("ipython")
    except Exception:
        v = "unknown"
r = {"path": sys.executable, "version": "%d.%d.%d" % sys.version_info[:3], "ok": ok, "ipython": v}`;

export const PYTHON_PROBE = `${PROBE_FACTS}\nprint(json.dumps(r))`;

// A local interpreter's probe also lists the top-level modules it has apart from any project: what a
// kernel's `import NAME` finds before a skill of that name, appended last to its sys.path
// (python/relm/skillpath.py). So a session's prompt can say at once which skills cannot be imported
// (prompt-inputs.ts), without waiting for its kernel to start and say so. The directories are those of
// sys.path but '' (the probe's own working directory) and PYTHONPATH's (the session's, checked when the
// prompt is built: skill-shadow.ts); their mtimes keep the cache honest when a package is installed.
// Listed by hand, not with pkgutil.iter_modules, whose import alone costs 15-40 ms; the same rules: a
// module file with an import suffix, or a folder with an __init__ (a folder without one is a namespace
// portion, which a skill's regular package comes before). Not sys.stdlib_module_names: it names modules
// this Python may not have (winreg; Debian's separately packaged tkinter), which the listing finds
// where they are. Exported for bench/python-probe.mjs, which measures what it adds to a probe.
export const PROBE_MODULES = `import os, importlib.machinery as mach
sfx = mach.all_suffixes()
own = {os.path.abspath(p) for p in [""] + os.environ.get("PYTHONPATH", "").split(os.pathsep)}
dirs = [p for p in sys.path if p and os.path.isdir(p) and os.path.abspath(p) not in own]
mods = set(sys.builtin_module_names)
for d in dirs:
    try:
        entries = os.listdir(d)
    except OSError:
        continue
    for e in entries:
        if e.isidentifier():
            if any(os.path.isfile(os.path.join(d, e, "__init__" + s)) for s in sfx):
                mods.add(e)
            continue
        for s in sfx:
            if e.endswith(s) and e[: -len(s)].isidentifier():
                mods.add(e[: -len(s)])
                break
r.update(modules=sorted(mods), suffixes=sfx, dirs=dirs)`;

const LOCAL_PROBE = `${PROBE_FACTS}\n${PROBE_MODULES}\nprint(json.dumps(r))`;

/** What PYTHON_PROBE printed (its last line on stdout), or undefined when that is not its answer. */
export function probeAnswer(stdout: string): (PythonInfo & { ok: boolean }) | undefined {
  try {
    const r = JSON.parse(stdout.trim().split("\n").pop() ?? "") as Record<string, unknown>;
    if (typeof r.path !== "string" || !r.path || typeof r.version !== "string") return undefined;
    const ipython = typeof r.ipython === "string" ? r.ipython : null;
    const modules = strings(r.modules);
    const suffixes = strings(r.suffixes);
    const dirs = strings(r.dirs);
    const listing = modules && suffixes && dirs ? { modules: { names: modules, suffixes, dirs } } : {};
    return { path: r.path, version: r.version, ok: r.ok === true, ipython, ...listing };
  } catch {
    return undefined;
  }
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;
}

/**
 * The interpreter kernels run on: `$RELM_PYTHON` if set (even without IPython, with a warning),
 * else the first of `python3` on PATH and `/usr/bin/python3` that has IPython, else the first that
 * works at all (plain-exec fallback). With `cacheDir`, the answer is cached in a JSON file keyed by
 * the candidates' real paths and mtimes, so later runs skip probing.
 */
export async function findPython(
  env: NodeJS.ProcessEnv = process.env,
  cacheDir?: string,
  trust?: ProbeTrust,
): Promise<FoundPython> {
  const relmPython = env.RELM_PYTHON?.trim();
  const names = relmPython ? [relmPython, "python3", "/usr/bin/python3"] : ["python3", "/usr/bin/python3"];
  const candidates = names.map((name) => ({ name, file: which(name, env) }));
  const key = JSON.stringify(candidates.map((c) => [c.name, c.file && fileStamp(c.file)]));
  const hit = cacheDir ? readCache(cacheDir, key) : null;
  const found = hit ?? (await probeAll(candidates, relmPython, env, trust));
  // A miss is not cached: the user may install IPython next (as doctor advises) without touching python3.
  if (!hit && cacheDir && found.ipython) writeCache(cacheDir, key, found);
  // At a cache hit too: relm's package may be newer than its bytecode (an upgrade, a pulled checkout).
  // Never an interpreter sandboxed code could have written: that one runs only inside a confinement.
  if (!trust || !isUntrusted(found.path, trust.untrusted))
    precompileRelm(found.path, found.version, HOST_PYTHON_PRELUDE);
  return found;
}

async function probeAll(
  candidates: { name: string; file: string | undefined }[],
  relmPython: string | undefined,
  env: NodeJS.ProcessEnv,
  trust: ProbeTrust | undefined,
): Promise<FoundPython> {
  const tried = candidates.map((c) => c.name);
  let fallback: PythonInfo | null = null;
  const seen = new Set<string>();
  for (const [i, c] of candidates.entries()) {
    const info = c.file ? await probe(c.file, env, trust) : null;
    if (relmPython && i === 0) {
      if (!info) {
        throw new PythonNotFoundError(
          [c.name],
          `RELM_PYTHON=${c.name} is not a working Python 3.10+ interpreter`,
        );
      }
      const warning = info.ipython
        ? undefined
        : `RELM_PYTHON=${c.name} cannot import IPython: cells run with plain exec (no !cmd or %magics).`;
      return { ...info, cached: false, ...(warning ? { warning } : {}) };
    }
    if (!info || seen.has(info.path)) continue;
    seen.add(info.path);
    if (info.ipython) return { ...info, cached: false };
    fallback ??= info;
  }
  if (fallback) {
    return {
      ...fallback,
      cached: false,
      warning:
        `${fallback.path} cannot import IPython: cells run with plain exec (no !cmd or %magics). ` +
        "Install it with `sudo apt-get install python3-ipython` (Debian/Ubuntu) or `python3 -m pip install ipython`.",
    };
  }
  throw new PythonNotFoundError(tried);
}

function probe(file: string, env: NodeJS.ProcessEnv, trust?: ProbeTrust): Promise<PythonInfo | null> {
  let command = { file, args: ["-c", LOCAL_PROBE] };
  if (trust && isUntrusted(file, trust.untrusted)) {
    if (!trust.wrap) return Promise.resolve(null);
    command = trust.wrap(command.file, command.args);
  }
  return new Promise((resolve) => {
    // A module list of a Python with thousands of packages runs to tens of KB.
    const options = { env, timeout: 20_000, maxBuffer: 1 << 22 };
    execFile(command.file, command.args, options, (err, stdout) => {
      const answer = err ? undefined : probeAnswer(stdout);
      if (!answer?.ok) return resolve(null);
      const { ok: _ok, ...info } = answer;
      resolve(info);
    });
  });
}

/** Whether `file` (or what its links lead to) lies in one of `dirs`. */
function isUntrusted(file: string, dirs: readonly string[]): boolean {
  const paths = [path.resolve(file)];
  try {
    paths.push(realpathSync(file));
  } catch {
    // a dangling link: its own path decides
  }
  return dirs.some((dir) => {
    const roots = [path.resolve(dir)];
    try {
      roots.push(realpathSync(dir));
    } catch {
      // gone: its own path decides
    }
    return paths.some((p) => roots.some((root) => p === root || p.startsWith(root + path.sep)));
  });
}

function fileStamp(file: string): string {
  try {
    const real = realpathSync(file);
    return `${real}@${statSync(real).mtimeMs}`;
  } catch {
    return "missing";
  }
}

interface CacheFile {
  version: number;
  key: string;
  exe: string;
  /** The module listing's directories with their mtimes (dirStamps). */
  dirs: string;
  found: FoundPython;
}

function dirStamps(found: PythonInfo): string {
  return JSON.stringify((found.modules?.dirs ?? []).map((dir) => fileStamp(dir)));
}

function readCache(dir: string, key: string): FoundPython | null {
  try {
    const data = JSON.parse(readFileSync(path.join(dir, CACHE_FILE), "utf8")) as CacheFile;
    // The chosen interpreter itself may sit behind a shim (pyenv): check it has not changed either.
    if (data.version !== CACHE_VERSION || data.key !== key || fileStamp(data.found.path) !== data.exe)
      return null;
    // A package installed or removed since changes a directory of the module listing.
    if (dirStamps(data.found) !== data.dirs) return null;
    return { ...data.found, cached: true };
  } catch {
    return null;
  }
}

function writeCache(dir: string, key: string, found: FoundPython): void {
  try {
    makeDirs(dir);
    const file = path.join(dir, CACHE_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    const data: CacheFile = {
      version: CACHE_VERSION,
      key,
      exe: fileStamp(found.path),
      dirs: dirStamps(found),
      found,
    };
    writeFileSync(tmp, JSON.stringify(data));
    renameSync(tmp, file);
  } catch {
    // A cache that cannot be written only costs the next run a probe.
  }
}
