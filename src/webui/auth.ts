// Who may use `relm web`: whoever holds the token printed with its address, as Jupyter does it. The
// token comes once in the URL (?token=…), is swapped for an HttpOnly, SameSite=Strict cookie, and the
// address loses it (a redirect), so it does not stay in the history or get copied with a link. Scripts
// may send it as `Authorization: token …`. Every request needs one or the other, the event streams too.
// On top of that, the Host header must name this server when it listens on loopback (a DNS-rebinding
// page would send its own name), and a request that says where it comes from (Origin) must come from
// this server's own pages.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

export interface Gate {
  token: string;
  /** The cookie's name: one per port, since browsers share cookies between a host's ports. */
  cookieName: string;
  /** The cookie's value: derived from the token, so a restarted server with the same token accepts it. */
  cookieValue: string;
  /** Host header values accepted (loopback binding); undefined: any (a non-loopback binding). */
  hosts: Set<string> | undefined;
}

/** A token with 192 bits of randomness, URL-safe. */
export function newToken(): string {
  return randomBytes(24).toString("base64url");
}

export function isLoopback(host: string): boolean {
  if (host === "localhost" || host === "::1") return true;
  return isIP(host) === 4 && host.startsWith("127.");
}

export function makeGate(token: string, bound: { host: string; port: number }): Gate {
  const cookieValue = createHmac("sha256", token).update("relm-web-cookie").digest("base64url");
  const { host, port } = bound;
  const hosts = isLoopback(host)
    ? new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${hostLiteral(host)}:${port}`])
    : undefined;
  return { token, cookieName: `relm-web-${port}`, cookieValue, hosts };
}

/** An IPv6 address in a URL or Host header is bracketed. */
export function hostLiteral(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

type Verdict =
  | { ok: true; setCookie?: string; dropTokenFrom?: URL }
  | { ok: false; status: 400 | 403; reason: string };

/** Whether `req` may be answered, and whether it brought the token in its address (then: cookie, redirect). */
export function admit(gate: Gate, req: IncomingMessage, url: URL): Verdict {
  const host = req.headers.host ?? "";
  if (gate.hosts && !gate.hosts.has(host))
    return {
      ok: false,
      status: 403,
      reason: `this server does not answer to the host name ${host || "(none)"}`,
    };
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`)
    return { ok: false, status: 403, reason: "a request from another site's page" };
  const cookie = cookieOf(req, gate.cookieName);
  if (cookie !== undefined && same(cookie, gate.cookieValue)) return { ok: true };
  const auth = /^token\s+(\S+)$/i.exec(req.headers.authorization ?? "");
  if (auth?.[1] !== undefined && same(auth[1], gate.token)) return { ok: true };
  const given = url.searchParams.get("token");
  if (given !== null && same(given, gate.token) && req.method === "GET") {
    const clean = new URL(url);
    clean.searchParams.delete("token");
    return {
      ok: true,
      setCookie: `${gate.cookieName}=${gate.cookieValue}; HttpOnly; SameSite=Strict; Path=/`,
      dropTokenFrom: clean,
    };
  }
  return {
    ok: false,
    status: 403,
    reason: given !== null ? "wrong token" : "no token: open the address relm web printed, with its ?token=",
  };
}
