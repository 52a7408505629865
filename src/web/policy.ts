// Which hosts the kernel's web calls (fetch, search) may reach. The host process makes every request, so
// this is where the rule is enforced: a sandboxed kernel has no network of its own, and a model cannot
// talk its way around a check that runs outside the kernel.

import { UsageError } from "../config/errors.js";

export interface WebPolicy {
  /** Hosts (`HOST` or `HOST:PORT`) requests may go to; undefined: any host. */
  readonly allow: readonly string[] | undefined;
  /** The kernel runs in the sandbox: without an allow-list nothing is reachable. */
  readonly sandboxed: boolean;
}

/**
 * `--allow-web` values (repeatable, each a comma-separated list) as lower-case entries. An entry names
 * a host and its subdomains (`python.org` allows `docs.python.org`), with an optional port.
 */
export function parseAllowWeb(values: readonly string[], flag = "--allow-web"): string[] {
  const out: string[] = [];
  for (const value of values) {
    for (const raw of value.split(",")) {
      const entry = raw.trim().toLowerCase().replace(/^\*\./, "").replace(/\.$/, "");
      if (!entry) continue;
      if (!/^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:\d{1,5})?$/.test(entry))
        throw new UsageError(
          `${flag}: "${raw.trim()}" is not a host name (HOST or HOST:PORT, no scheme or path)`,
        );
      out.push(entry);
    }
  }
  return out;
}

/** Why `url` may not be requested, or undefined when it may. */
export function refusal(url: URL, policy: WebPolicy): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `${url.protocol.replace(/:$/, "")}: URLs are not fetched (only http and https)`;
  if (url.username || url.password) return "URLs with a user name or password are not fetched";
  const allow = policy.allow;
  if (allow === undefined || allow.length === 0) {
    if (!policy.sandboxed) return undefined;
    return `the kernel runs in the sandbox and no web host is allowed; start relm with --allow-web ${url.hostname} (or set allowWeb in config.json)`;
  }
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  for (const entry of allow) {
    const colon = entry.lastIndexOf(":");
    const hasPort = colon > 0 && !entry.endsWith("]") && /^\d+$/.test(entry.slice(colon + 1));
    const name = hasPort ? entry.slice(0, colon) : entry;
    if (hasPort && entry.slice(colon + 1) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return undefined;
  }
  return `${url.host} is not in the allowed web hosts (${allow.join(", ")}); add it with --allow-web`;
}
