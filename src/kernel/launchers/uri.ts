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

/** A kernel URI's `?a=1&b=2` options, checked as they are read: each refusal names the URI and the fix. */
export class UriOptions {
  private readonly values = new Map<string, string>();

  /** Refuses keys not in `known` (named in the message with the fix). */
  constructor(
    query: string,
    known: readonly string[],
    private readonly where: string,
    private readonly uri: string,
    syntax: string,
  ) {
    for (const [key, value] of new URLSearchParams(query)) {
      if (!known.includes(key)) {
        const list = known.length > 0 ? `known: ${known.join(", ")}` : "it takes none";
        throw launcherUsage(where, uri, `unknown option "${key}" (${list})`, `Use ${syntax}.`);
      }
      this.values.set(key, value);
    }
  }

  get(key: string): string | undefined {
    return this.values.get(key);
  }

  /** `key`'s value when given; one that `form` does not match is refused (the fix gives `key=example`). */
  matching(key: string, form: RegExp, example: string): string | undefined {
    const value = this.values.get(key);
    if (value !== undefined && !form.test(value))
      throw launcherUsage(
        this.where,
        this.uri,
        `${key}="${value}" is not valid`,
        `Give e.g. ${key}=${example}.`,
      );
    return value;
  }

  /** The `python=` option of a remote launcher's URI, python3 when absent; an empty one is refused with `fix`. */
  python(fix: string): string {
    const python = this.values.get("python") ?? "python3";
    if (!python) throw launcherUsage(this.where, this.uri, "python= is empty", fix);
    return python;
  }
}
