// An API key goes into an HTTP header (Authorization: Bearer KEY, x-api-key). fetch refuses a header
// value with a line break or NUL in it (after trimming the ends) or a character above U+00FF, and its
// error quotes the whole value: the key would reach stderr and the journal. A key of two lines (a key
// file with a comment, `RELM_API_KEY="$(cat key.txt)"`) is refused where it is read instead, by where
// it came from, never quoting it.

/** Why `key` cannot be sent in a header, or undefined when it can. Never says what the key is. */
export function apiKeyProblem(key: string): string | undefined {
  const inner = key.trim();
  if (/[\r\n]/.test(inner)) return "the API key has a line break in it; give the key alone, on one line";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what a header value cannot hold.
  if (/[\u0000]|[^\u0000-\u00ff]/.test(inner))
    return "the API key has a character an HTTP header cannot carry (a NUL, or one beyond Latin-1, often pasted by mistake); copy the key again";
  return undefined;
}
