// Helpers every launcher's parser uses: the UsageError for a bad kernel URI, and shell quoting for
// launchers that hand a command line to a shell on the other side (ssh runs one there).
import { UsageError } from "../../config/errors.js";

/**
 * A bad kernel URI: names where it came from (`--kernel`, `config kernel`, an agent spec), the URI,
 * what is wrong and how to fix it, e.g.
 * `--kernel "ssh://host:99999": the port must be 1-65535. Use ssh://[user@]host[:port][/workdir].`
 */
export function launcherUsage(where: string, uri: string, problem: string, fix: string): UsageError {
  return new UsageError(`${where} ${JSON.stringify(uri)}: ${problem}. ${fix}`);
}

/** `word` quoted for a POSIX shell (sh, bash, zsh, dash): as is when safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

/** `?a=1&b=2` as a map, refusing keys not in `known` (named in the message with the fix). */
export function queryOptions(
  query: string,
  known: readonly string[],
  where: string,
  uri: string,
  syntax: string,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(query)) {
    if (!known.includes(key)) {
      const list = known.length > 0 ? `known: ${known.join(", ")}` : "it takes none";
      throw launcherUsage(where, uri, `unknown option "${key}" (${list})`, `Use ${syntax}.`);
    }
    out.set(key, value);
  }
  return out;
}

/** The `python=` option of a remote launcher's URI, python3 when absent; an empty one is refused with `fix`. */
export function pythonOption(opts: Map<string, string>, where: string, uri: string, fix: string): string {
  const python = opts.get("python") ?? "python3";
  if (!python) throw launcherUsage(where, uri, "python= is empty", fix);
  return python;
}
