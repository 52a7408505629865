import { delimiter } from "node:path";
import { hasCredentialUrl } from "../config/credential-urls.js";
import { RELM_PYTHON_DIR } from "./paths.js";

// Provider keys and other credentials never reach model-written code unless passed on purpose. Words
// that only ever mean a secret match anywhere (SECRET, PASSWORD, PASSWD); the others only as whole
// `_`-separated words, so that AUTHOR, OAUTH_CALLBACK_PORT or PASSTHROUGH stay. AUTH is a secret as the
// last word (BASIC_AUTH, npm's npm_config__auth) or before one that holds the secret (AUTH_KEY,
// AUTH_HEADER), not where it names a setting (AUTH_MODE, AUTH_URL) or ssh-agent's socket
// (SSH_AUTH_SOCK: git over ssh in a cell needs it, and it holds no secret itself).
const SECRET_PATTERNS: RegExp[] = [
  /(^|_)API_KEY$/i,
  /(^|_)TOKEN$/i,
  /SECRET/i,
  /PASSWORD/i,
  /PASSWD/i,
  /(^|_)PASS$/i,
  /(^|_)CREDENTIALS?(_|$)/i,
  /(^|_)PRIVATE_?KEY(_|$)/i,
  /(^|_)AUTH(_(KEY|HEADER|STRING|PASS|TOKEN))?$/i,
  /(^|_)AUTHORIZATION(_|$)/i,
  /^RELM_API_KEY$/i,
  /^OPENAI_/i,
  /^ANTHROPIC_/i,
];

function isSecretName(name: string): boolean {
  return SECRET_PATTERNS.some((re) => re.test(name));
}

/** A secret by its name, or by its value: a URL with a password in it (DATABASE_URL, proxies). */
export function isSecretEntry(name: string, value: string): boolean {
  return isSecretName(name) || hasCredentialUrl(value);
}

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
