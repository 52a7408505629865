import { delimiter } from "node:path";
import { isSecretEntry } from "../config/secret-env.js";
import { RELM_PYTHON_DIR } from "./paths.js";

/**
 * The environment a kernel sees: `env` without secrets, by name or by a value that is a URL with a
 * password (except names in `passEnv`, compared case-insensitively), with unbuffered Python and relm's
 * Python package first on PYTHONPATH.
 */
export function scrubEnvironment(
  env: NodeJS.ProcessEnv,
  passEnv: readonly string[] = [],
  pythonDir: string = RELM_PYTHON_DIR,
): NodeJS.ProcessEnv {
  const allowed = new Set(passEnv.map((n) => n.toUpperCase()));
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretEntry(name, value) && !allowed.has(name.toUpperCase())) continue;
    out[name] = value;
  }
  out.PYTHONUNBUFFERED = "1";
  // Tools that would stop and wait for a person (there is none: stdin is /dev/null) fail instead.
  out.GIT_TERMINAL_PROMPT = "0";
  // No editor can open without a terminal: `git commit` without -m (or a merge, a rebase) would wait in
  // vi until the cell timed out. `false` makes git say at once to give the message with -m or -F.
  out.GIT_EDITOR = "false";
  out.EDITOR = "false";
  out.VISUAL = "false";
  out.DEBIAN_FRONTEND ??= "noninteractive";
  out.PIP_NO_INPUT ??= "1";
  const existing = out.PYTHONPATH;
  out.PYTHONPATH = existing ? `${pythonDir}${delimiter}${existing}` : pythonDir;
  return out;
}

/**
 * Names the session a kernel belongs to, in the environment it starts with: `RELM_KERNEL=<session id>`.
 * The kernel's processes keep it in /proc/PID/environ whatever a cell later does to os.environ, and its
 * keeper (python/relm/keeper.py) runs no cell at all; a session host reads it to tell a connection
 * made from inside a kernel from a person's (src/host/peer.ts), `relm doctor` to find what a gone
 * session left running.
 */
export const KERNEL_MARKER = "RELM_KERNEL";

/** `env` with the marker of `session` (a kernel started from it belongs to that session). */
export function markKernelEnv(env: NodeJS.ProcessEnv, session: string): NodeJS.ProcessEnv {
  return { ...env, [KERNEL_MARKER]: session };
}

/**
 * Names the skill package folders a kernel imports from (python/relm/skillpath.py): relm's runner puts
 * them after everything else on sys.path. Not on PYTHONPATH, whose entries come before the standard
 * library: a skill named `json` would be what `import json` gives the kernel, relm's runner included.
 */
const SKILL_PATH_ENV = "RELM_SKILL_PATH";

/**
 * `env` with `folders` (most specific first) as its skill folders, and only those: a relm started from a
 * cell inherits its kernel's, which are not its own.
 */
export function withSkillPath(env: NodeJS.ProcessEnv, folders: readonly string[]): NodeJS.ProcessEnv {
  const out = { ...env };
  if (folders.length > 0) out[SKILL_PATH_ENV] = folders.join(delimiter);
  else delete out[SKILL_PATH_ENV];
  return out;
}

/** The skill folders named in `env`. */
export function skillFolders(env: NodeJS.ProcessEnv): string[] {
  return (env[SKILL_PATH_ENV] ?? "").split(delimiter).filter((p) => p !== "");
}
