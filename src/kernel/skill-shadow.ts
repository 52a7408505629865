// Which skill packages a local kernel cannot import, told without starting it: a kernel's sys.path is
// its working directory (`python -m relm.runner`), relm's Python package and PYTHONPATH's entries, then
// its interpreter's own directories, then the skill folders (python/relm/skillpath.py). A skill whose
// module name one of those has first is shadowed: the interpreter's from its probe's listing
// (python.ts), the rest looked up here, as Python's path finder would. The kernel still checks when it
// starts (skillpath.shadowed), and what it says stands for every later prompt (Conversation.kernelStarted).
import { statSync } from "node:fs";
import path from "node:path";
import { RELM_PYTHON_DIR } from "./paths.js";
import type { PythonInfo } from "./types.js";

/** The module a skill folder's package is imported as (src/learning/store/skills.ts uses this too). */
export function skillModuleOf(folder: string): string {
  return path.basename(folder).replace(/-/g, "_");
}

/**
 * The skill folders, of `folders`, whose `import NAME` gives another module in a local kernel run by
 * `python` in `cwd` with `env` (the kernel's); undefined when the interpreter was not listed (a probe
 * from elsewhere): then only the kernel can say.
 */
export function shadowedSkillFolders(
  folders: readonly string[],
  python: PythonInfo,
  cwd: string,
  env: NodeJS.ProcessEnv,
): string[] | undefined {
  const listing = python.modules;
  if (!listing) return undefined;
  const names = new Set(listing.names);
  const pythonPath = (env.PYTHONPATH ?? "").split(path.delimiter).filter((p) => p !== "");
  const first = [cwd, RELM_PYTHON_DIR, ...pythonPath.map((p) => path.resolve(cwd, p))];
  return folders.filter((folder) => {
    const name = skillModuleOf(folder);
    // Not a module name: skillpath.shadowed does not check it either.
    if (!/^[\p{L}_][\p{L}\p{N}_]*$/u.test(name)) return false;
    return names.has(name) || first.some((dir) => hasModule(dir, name, listing.suffixes));
  });
}

/**
 * Whether `dir` has module `name`: a file with an import suffix or a regular package. A folder without
 * an `__init__` is a namespace portion, which a skill's regular package, found later, comes before.
 */
function hasModule(dir: string, name: string, suffixes: readonly string[]): boolean {
  return suffixes.some(
    (suffix) => isFile(path.join(dir, name + suffix)) || isFile(path.join(dir, name, `__init__${suffix}`)),
  );
}

function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}
