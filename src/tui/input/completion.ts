// Completion in the input: `/` opens the command palette (fuzzy, with one-line descriptions), `@` completes
// a file of the project (respecting .gitignore through git when it is a repository), Tab completes paths.
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import {
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  CombinedAutocompleteProvider,
  fuzzyFilter,
  type SlashCommand,
} from "@mariozechner/pi-tui";

const MAX_FILES = 20_000;
const CACHE_MS = 5_000;
/** git lists 80,000 files in ~0.2 s: what takes longer is stuck. */
const LIST_TIMEOUT_MS = 5_000;
const SKIP_DIRS = new Set([".git", "node_modules", "__pycache__", ".venv", "venv", "dist", "build", ".relm"]);

/** The project's files: `git ls-files` (tracked and untracked, not ignored), else a bounded walk. */
export async function listProjectFiles(cwd: string, signal?: AbortSignal): Promise<string[]> {
  const fromGit = await new Promise<string[] | undefined>((resolve) => {
    execFile(
      "git",
      // The project's .git/config is the project's (sandboxed code may have written it, docs/sandbox.md):
      // its core.fsmonitor would run a command of its choosing at every `@`.
      ["-c", "core.fsmonitor=false", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
      // A FIFO a cell made at a .gitignore holds git at its open for ever: given up, the walk answers.
      { cwd, maxBuffer: 64 * 1024 * 1024, signal, timeout: LIST_TIMEOUT_MS },
      // A path with a merge conflict is listed once per stage (up to three times): each is kept once.
      (error, stdout) =>
        resolve(error ? undefined : [...new Set(stdout.split("\0").filter(Boolean))].slice(0, MAX_FILES)),
    );
  });
  if (fromGit) return fromGit;
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (out.length >= MAX_FILES || depth > 8) return;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (out.length >= MAX_FILES) return;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) walk(join(dir, e.name), depth + 1);
      } else if (e.isFile()) out.push(relative(cwd, join(dir, e.name)));
    }
  };
  walk(cwd, 0);
  return out;
}

export class RelmCompletion implements AutocompleteProvider {
  private readonly combined: CombinedAutocompleteProvider;
  private files: { at: number; list: Promise<string[]> } | undefined;

  constructor(
    commands: SlashCommand[],
    private readonly cwd: string,
  ) {
    this.combined = new CombinedAutocompleteProvider(commands, cwd, null);
  }

  private projectFiles(signal: AbortSignal): Promise<string[]> {
    if (!this.files || Date.now() - this.files.at > CACHE_MS) {
      this.files = { at: Date.now(), list: listProjectFiles(this.cwd, signal).catch(() => []) };
    }
    return this.files.list;
  }

  async getSuggestions(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    options: { signal: AbortSignal; force?: boolean },
  ): Promise<AutocompleteSuggestions | null> {
    const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
    const at = /(?:^|\s)@([^\s@]*)$/.exec(before);
    if (at) {
      const query = at[1] ?? "";
      const files = await this.projectFiles(options.signal);
      if (options.signal.aborted) return null;
      const matches = (query ? fuzzyFilter(files, query, (f) => f) : files).slice(0, 30);
      if (matches.length === 0) return null;
      // The path once: a file's name beside its own path read as the same path twice.
      // A path with spaces is quoted, or the message could not say where it ends (@my notes/week 1.md).
      const items: AutocompleteItem[] = matches.map((f) => ({
        value: /\s/.test(f) ? `@"${f}"` : `@${f}`,
        label: f,
      }));
      return { items, prefix: `@${query}` };
    }
    return this.combined.getSuggestions(lines, cursorLine, cursorCol, options);
  }

  applyCompletion(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    item: AutocompleteItem,
    prefix: string,
  ): { lines: string[]; cursorLine: number; cursorCol: number } {
    // The editor keeps showing the last list while the next one is on its way, and Enter or Tab then
    // applies it: keys typed fast (a paste of keystrokes, a loaded machine) would replace the end of
    // the new text with a completion of the old ("/review src/app.ts" became "/review src/appresume").
    // A list whose prefix no longer ends the text is stale; the text stays as typed.
    const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
    if (!before.endsWith(prefix)) return { lines, cursorLine, cursorCol };
    if (prefix.startsWith("@")) {
      const line = lines[cursorLine] ?? "";
      const start = cursorCol - prefix.length;
      const insert = `${item.value} `;
      const next = [...lines];
      next[cursorLine] = line.slice(0, start) + insert + line.slice(cursorCol);
      return { lines: next, cursorLine, cursorCol: start + insert.length };
    }
    return this.combined.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.combined.shouldTriggerFileCompletion(lines, cursorLine, cursorCol);
  }
}
