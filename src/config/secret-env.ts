// Which environment entries are secrets: provider keys, secret-looking names, URLs with a password.
// Kernels, gates, MCP servers and every helper relm starts (git, pdftotext) run without them; only the
// model client and the relm processes that hand them on (src/host/key-pipe.ts) hold them.
import { hasCredentialUrl } from "./credential-urls.js";

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

/** A secret by its name, or by its value: a URL with a password in it (DATABASE_URL, proxies). */
export function isSecretEntry(name: string, value: string): boolean {
  return SECRET_PATTERNS.some((re) => re.test(name)) || hasCredentialUrl(value);
}

/** `env` without its secrets (isSecretEntry), for a program relm starts that has no use for them. */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretEntry(name, value)) out[name] = value;
  }
  return out;
}
