// URLs that carry a password (`postgres://app:s3cret@db/x`, `https://user:token@proxy:3128`): a
// DATABASE_URL-style value is as much a secret as an API key, whatever the variable is called.

interface Found {
  user: string;
  password: string;
  /** Where the password starts and ends in the text. */
  start: number;
  end: number;
}

const SCHEME_CHAR = /[a-z0-9+.-]/i;
const LETTER = /[a-z]/i;
/** Characters that end a URL's authority (host part), or the URL itself. */
const AUTHORITY_END = /[\s/?#"'<>]/;
const MAX_AUTHORITY = 512;

/**
 * Every `scheme://user:password@` in `text`. The user may be empty (`redis://:pw@host`); the password
 * runs to the last `@` before the host, since people write raw `@`s in passwords. Not matched:
 * `ssh://git@host` (no password), `http://host:8080/` (a port, no `@`). A scan from each `://` rather
 * than a regular expression, so a 20 MB cell output costs linear time.
 */
function find(text: string): Found[] {
  const out: Found[] = [];
  for (let at = text.indexOf("://"); at !== -1; at = text.indexOf("://", at + 3)) {
    let s = at;
    while (s > 0 && at - s < 32 && SCHEME_CHAR.test(text[s - 1] as string)) s--;
    while (s < at && !LETTER.test(text[s] as string)) s++;
    if (s === at) continue;
    const from = at + 3;
    let end = from;
    while (end < text.length && end - from < MAX_AUTHORITY && !AUTHORITY_END.test(text[end] as string)) end++;
    const authority = text.slice(from, end);
    const lastAt = authority.lastIndexOf("@");
    const colon = authority.indexOf(":");
    if (lastAt === -1 || colon === -1 || colon > lastAt) continue;
    const user = authority.slice(0, colon);
    const password = authority.slice(colon + 1, lastAt);
    if (password === "" || user.includes("@")) continue;
    out.push({ user, password, start: from + colon + 1, end: from + lastAt });
  }
  return out;
}

/** Whether `text` holds a URL with a password in it. */
export function hasCredentialUrl(text: string): boolean {
  return find(text).length > 0;
}

/**
 * The secret parts of every such URL in `text`: `user:password` and the password, each also
 * percent-decoded (a program that parsed the URL prints the decoded form).
 */
export function credentialsIn(text: string): string[] {
  const out = new Set<string>();
  for (const { user, password } of find(text)) {
    for (const part of [`${user}:${password}`, password]) {
      out.add(part);
      const decoded = decode(part);
      if (decoded !== part) out.add(decoded);
    }
  }
  return [...out];
}

/** `text` with the password of every such URL replaced by `mask` (`postgres://app:MASK@db/x`). */
export function maskCredentialUrls(text: string, mask: string): string {
  const found = find(text);
  if (found.length === 0) return text;
  let out = "";
  let last = 0;
  for (const f of found) {
    out += text.slice(last, f.start) + mask;
    last = f.end;
  }
  return out + text.slice(last);
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
