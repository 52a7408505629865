import { delimiter } from "node:path";
import { RELM_PYTHON_DIR } from "./paths.js";

// Provider keys and other credentials never reach model-written code unless passed on purpose.
const SECRET_PATTERNS: RegExp[] = [
  /(^|_)API_KEY$/i,
  /(^|_)TOKEN$/i,
  /SECRET/i,
  /PASSWORD/i,
  /^RELM_API_KEY$/i,
  /^OPENAI_/i,
  /^ANTHROPIC_/i,
];

export function isSecretName(name: string): boolean {
  return SECRET_PATTERNS.some((re) => re.test(name));
}

/**
 * The environment a kernel sees: `env` without secrets (except names in `passEnv`, compared
 * case-insensitively), with unbuffered Python and relm's Python package first on PYTHONPATH.
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
    if (isSecretName(name) && !allowed.has(name.toUpperCase())) continue;
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
