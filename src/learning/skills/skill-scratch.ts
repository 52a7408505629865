// The scratch copy of a project a mined skill's smoke test runs in: whatever the skill writes lands in the
// copy, never in the user's files. The project is copied whole (reflinks where the filesystem has them)
// but for what a run never needs (.git, node_modules, virtualenvs, caches, RELM_HOME); a project too big
// to copy gets only the files the chain reads.
import { constants, copyFileSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { makeDirs } from "../../config/dirs.js";
import { realPath as real, within } from "../../config/paths.js";

/** Folders never copied: history, dependencies, caches, relm's own state. */
const SCRATCH_SKIPPED = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  ".relm",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".nox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
]);

interface ScratchLimits {
  files: number;
  bytes: number;
}

/** Above either, only the chain's inputs are copied. */
const SCRATCH_LIMITS: ScratchLimits = { files: 20_000, bytes: 512 * 1024 * 1024 };

interface Scratch {
  /** The temporary folder holding the copy (and the package under test). */
  dir: string;
  /** The copy of the project. */
  root: string;
  /** The recorded run's working directory, in the copy. */
  cwd: string;
  /** What was copied, for the test's output. */
  copied: string;
  /** A path the call writes (as recorded, relative to the run's directory or absolute), inside the copy. */
  writePath(path: string): string;
  /** A path the call reads: into the copy when it is in the project, else as it was. */
  readPath(path: string): string;
  close(): void;
}

interface Planned {
  files: { from: string; to: string }[];
  dirs: string[];
  bytes: number;
  /** Symbolic links left out: they lead out of the project, where a write would land in the user's files. */
  links: number;
}

/**
 * Copies `project` into a new temporary folder. `cwd` is the recorded run's directory (inside the project);
 * `inputs` the files the chain reads (relative to `cwd` or absolute), copied even when the rest is not;
 * `exclude` folders left out wherever they are (RELM_HOME inside the project).
 */
export function makeScratch(
  project: string,
  cwd: string,
  inputs: readonly string[],
  exclude: readonly string[] = [],
  limits: ScratchLimits = SCRATCH_LIMITS,
): Scratch {
  const from = real(project);
  const dir = mkdtempSync(join(tmpdir(), "relm-skill-"));
  const root = join(dir, basename(from) || "project");
  try {
    const plan = planCopy(from, root, new Set(exclude.map(real)), limits);
    let copied: string;
    if (plan) {
      for (const d of plan.dirs) makeDirs(d);
      for (const f of plan.files) copyFileSync(f.from, f.to, constants.COPYFILE_FICLONE);
      const mb = (plan.bytes / (1024 * 1024)).toFixed(1);
      const links = plan.links > 0 ? `, ${plan.links} symbolic link(s) out of it left out` : "";
      copied = `a scratch copy of the project (${plan.files.length} files, ${mb} MB; .git, node_modules, virtualenvs and caches left out${links})`;
    } else {
      makeDirs(root);
      let n = 0;
      for (const input of inputs) {
        const source = real(resolve(cwd, input));
        if (!within(source, from)) continue;
        const to = join(root, relative(from, source));
        try {
          if (!statSync(source).isFile()) continue;
          makeDirs(dirname(to));
          copyFileSync(source, to, constants.COPYFILE_FICLONE);
          n++;
        } catch {
          // gone since it was checked: the test says what it could not read
        }
      }
      copied = `a scratch folder holding only the chain's ${n} input file(s) (the project is over ${limits.files} files or ${limits.bytes / (1024 * 1024)} MB)`;
    }
    const inCopy = (path: string) => join(root, relative(from, path));
    const scratchCwd = within(real(cwd), from) ? inCopy(real(cwd)) : root;
    makeDirs(scratchCwd);
    return {
      dir,
      root,
      cwd: scratchCwd,
      copied,
      writePath(path) {
        const target = resolve(real(cwd), path);
        const mapped = within(target, from) ? inCopy(target) : join(dir, "outside", target);
        makeDirs(dirname(mapped));
        return mapped;
      },
      readPath(path) {
        const target = resolve(real(cwd), path);
        return isAbsolute(path) && within(target, from) ? inCopy(target) : path;
      },
      close: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Everything to copy, or undefined when the project is over the limits. */
function planCopy(
  from: string,
  to: string,
  excluded: Set<string>,
  limits: ScratchLimits,
): Planned | undefined {
  const plan: Planned = { files: [], dirs: [to], bytes: 0, links: 0 };
  const walk = (src: string, dest: string): boolean => {
    let names: string[];
    try {
      names = readdirSync(src);
    } catch {
      return true; // unreadable: not copied, as the kernel could not have read it either
    }
    for (const name of names.sort()) {
      if (SCRATCH_SKIPPED.has(name)) continue;
      const path = join(src, name);
      if (excluded.has(path)) continue;
      let stat = lstatSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isSymbolicLink()) {
        // A link to a file inside the project is copied as that file; any other link is left out.
        const target = real(path);
        stat = within(target, from) ? statSync(target, { throwIfNoEntry: false }) : undefined;
        if (!stat?.isFile()) {
          plan.links++;
          continue;
        }
      }
      if (stat.isDirectory()) {
        plan.dirs.push(join(dest, name));
        if (!walk(path, join(dest, name))) return false;
      } else if (stat.isFile()) {
        plan.files.push({ from: path, to: join(dest, name) });
        plan.bytes += stat.size;
        if (plan.files.length > limits.files || plan.bytes > limits.bytes) return false;
      }
    }
    return true;
  };
  return walk(from, to) ? plan : undefined;
}
