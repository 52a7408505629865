// Sandbox settings from their words: the permission mode's sandbox, `--allow-net` (all) and
// `--allow-net HOST[:PORT]` (repeatable), and the allow-list's matching.
import { UsageError } from "../../config/errors.js";
import type { PermissionMode } from "../../config/permission-mode.js";
import type { NetPolicy, NetRule, SandboxMode, SandboxSettings } from "./types.js";

/** What `--allow-net` without a value stands for (commander's preset). */
const ALLOW_ALL = "*";

// A DNS name (optionally `*.` in front), an IPv4 address, or an IPv6 address in brackets.
const HOST = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$/;
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;

/** One `--allow-net` value as a rule; a UsageError says what is wrong. */
export function parseNetRule(text: string): NetRule {
  const word = text.trim();
  let host = word;
  let port: number | undefined;
  const m = /^(.*):(\d+)$/.exec(word);
  if (m && (!word.startsWith("[") || m[1]!.endsWith("]"))) {
    host = m[1]!;
    port = Number(m[2]);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new UsageError(`--allow-net ${JSON.stringify(text)}: the port must be 1-65535`);
  }
  if (!HOST.test(host) && !IPV6.test(host)) {
    throw new UsageError(
      `--allow-net ${JSON.stringify(text)} is not HOST or HOST:PORT (e.g. pypi.org, 127.0.0.1:8080, *.github.com). ` +
        `Give it as --allow-net=HOST, or put the task after --`,
    );
  }
  return { host: normalHost(host), ...(port !== undefined ? { port } : {}) };
}

function normalHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[(.*)\]$/, "$1");
}

/** The network policy of `--allow-net` values (none given: no network). */
export function netPolicyOf(values: readonly string[] | undefined): NetPolicy {
  const list = values ?? [];
  if (list.length === 0) return { kind: "none" };
  if (list.includes(ALLOW_ALL)) return { kind: "all" };
  return { kind: "list", rules: list.map(parseNetRule) };
}

/** True when `host:port` (as a CONNECT or a proxied URL names it) is on the allow-list. */
export function allowed(rules: readonly NetRule[], host: string, port: number): boolean {
  const h = normalHost(host);
  return rules.some((r) => {
    if (r.port !== undefined && r.port !== port) return false;
    if (r.host.startsWith("*.")) return h.endsWith(r.host.slice(1)) && h.length > r.host.length - 1;
    return r.host === h;
  });
}

/**
 * The sandbox of a permission mode: none for `full`; for `workspace` and `plan` the same confinement
 * (`level`: workspace, or strict with $HOME hidden) and network, `plan` with the project read-only too.
 */
export function settingsForMode(
  mode: PermissionMode,
  level: SandboxMode,
  net: NetPolicy,
  readable?: string[],
): SandboxSettings | undefined {
  if (mode === "full") return undefined;
  return {
    mode: level,
    net,
    ...(mode === "plan" ? { readOnlyProject: true } : {}),
    ...(readable && readable.length > 0 ? { readable } : {}),
  };
}

/**
 * `env` as a process inside a sandbox of `mode` sees it: marked as inside, without what would make a relm
 * started in it nest another sandbox, and with HTTP clients sent to the allow-list's proxy (`proxyUrl`).
 */
export function insideEnv(env: NodeJS.ProcessEnv, mode: SandboxMode, proxyUrl?: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, RELM_IN_SANDBOX: mode }; // for the kernel's own messages and `!env`
  delete out.RELM_SANDBOX;
  delete out.RELM_ALLOW_NET;
  if (proxyUrl) {
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) {
      out[name] = proxyUrl;
      out[name.toLowerCase()] = proxyUrl;
    }
    out.NO_PROXY = "";
    out.no_proxy = "";
  }
  return out;
}
