// Checks a model endpoint's base URL before anything is sent to it. The WHATWG URL parser is lenient
// where a typo should be caught: "http://127.0.0.1:/v1" parses (an empty port is no port) and so does
// "http:///v1" (the path's first segment becomes the host), so both would reach a server nobody meant.
// Request paths are appended to the base URL ("/chat/completions", "/v1/messages"), so a ?query or
// #fragment in it would swallow them. hostOf (below) is here, the lowest layer, because config/ picks
// the wire by the host and llm/ decides request fields by it.

/** The scheme and authority of an http(s) URL as written, before the parser normalises them. */
const AUTHORITY = /^(https?):\/\/([^/?#]*)/i;

/** Why `url` cannot serve as a model endpoint's base URL, or undefined when it can. */
export function baseUrlProblem(url: string): string | undefined {
  const written = AUTHORITY.exec(url);
  if (!written) return "must start with http:// or https://";
  // userinfo@host:port: what follows the last "@" is the host and port.
  const hostPort = (written[2] ?? "").replace(/^.*@/, "");
  if (hostPort === "" || hostPort.startsWith(":")) return "has no host (e.g. http://localhost:8080/v1)";
  if (hostPort.endsWith(":"))
    return "has an empty port after the ':' (give one, e.g. :8080, or drop the ':')";
  if (!URL.canParse(url)) return "is not a valid URL (check the host and the port, 1 to 65535)";
  if (/[?#]/.test(url.slice(written[0].length))) {
    return "must not have a ?query or #fragment: request paths are appended to it";
  }
  return undefined;
}

/** The host name of a base URL; "" when it is not a URL (config picks a wire by it, llm a request field). */
export function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).hostname : "";
}
