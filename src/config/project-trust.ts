// Trust on first use of the project files that steer the host (docs/security.md): `.relm/hooks.json`
// (commands run at points of a session), MCP servers of `.mcp.json` / `.relm/mcp.json` (processes
// started), sub-agent specs that choose a kernel (`kernel:` in `.relm/agents/NAME.yaml`: where code
// runs). Anything in the project may have been written by a sandboxed cell or come with a cloned
// repository, so each is used only once the user approved exactly its content (`relm trust`, the UI's
// dialog at start, line mode's prompt); a changed file asks again. Approvals are kept by content hash in
// $RELM_HOME/trust.json (trust.ts: 0600, outside the project, hidden from the sandbox).
//
// This module is the one check each reader puts in front of its file: the reader says what the item is
// (kind, name, content) and asks `projectItemState`; `relm trust` lists and approves the same items.

import { createHash } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { readBoundedText } from "./bounded-read.js";
import { UserError } from "./errors.js";
import { type HookCommand, projectHooksFile, readProjectHooks } from "./hooks.js";
import { within } from "./paths.js";
import { contentHash, type TrustStore } from "./trust.js";

/** One thing in the project that needs the user's approval before relm uses it. */
export interface ProjectItem {
  /** "hooks", "mcp" (as src/mcp/trust.ts approves servers), "agent" (a spec's kernel). */
  readonly kind: string;
  /** Which one: the hooks file's name, the server's, the spec's. */
  readonly name: string;
  /** Where it is, relative to the project. */
  readonly file: string;
  /** What approving it lets run, a line each, as the user reads it before approving. */
  readonly runs: readonly string[];
  /** The content's hash: what an approval records. */
  readonly sha256: string;
}

export type ItemState = "approved" | "changed" | "not approved";

/** The kind the project's hooks file is approved as. */
export const HOOKS_TRUST_KIND = "hooks";
/** The kind a spec's `kernel:` is approved as. */
export const SPEC_KERNEL_TRUST_KIND = "agent";

/** Whether the user approved this item as it is now. A damaged trust.json approves nothing. */
export function projectItemState(
  store: TrustStore | UserError,
  project: string,
  item: ProjectItem,
): ItemState {
  if (store instanceof UserError) return "not approved";
  return store.check({ project, kind: item.kind, name: item.name }, item.sha256).state;
}

/** Records the user's approval of each item, as it is now. */
export function approveItems(store: TrustStore, project: string, items: readonly ProjectItem[]): void {
  for (const item of items) store.approve({ project, kind: item.kind, name: item.name }, item.sha256);
}

/** How a hook command reads in a listing: `PreToolUse [ipython]: ./check.sh`. */
function hookLine(hook: HookCommand): string {
  return `${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ""}: ${hook.command}`;
}

/** What of a named file its approval records: the first this many bytes, and its size. */
const NAMED_FILE_BYTES = 16 * 1024 * 1024;

/** Names of files that are run as code (an interpreter's script), besides executable ones. */
const SCRIPT = /\.(sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|php|lua)$/;

/**
 * The project's scripts that `words` (a command line's words) name, each with a hash of its content. An
 * approval by content covers them too: a hook or a server that runs `sh start.sh` is approved with
 * start.sh as it is, since the kernels can rewrite start.sh (in a sandboxed session too) while the entry
 * naming it stays the same. Words are paths (or `--flag=path`) relative to `cwd`; only a regular file
 * really inside the project that is executable or named like a script counts (not a log it writes).
 */
export function namedProjectFiles(
  words: readonly string[],
  project: string,
  cwd = project,
): { file: string; sha256: string }[] {
  let root: string;
  try {
    root = realpathSync(project);
  } catch {
    return [];
  }
  const found = new Map<string, string>();
  // A word without `=` is its own second candidate, and a command line may name a file twice: each once.
  const tried = new Set<string>();
  for (const word of words) {
    for (const candidate of [word, word.slice(word.indexOf("=") + 1)]) {
      if (!candidate || tried.has(candidate)) continue;
      tried.add(candidate);
      try {
        const real = realpathSync(isAbsolute(candidate) ? candidate : resolve(cwd, candidate));
        const stat = statSync(real);
        if (!stat.isFile() || real === root || !within(real, root)) continue;
        if ((stat.mode & 0o111) === 0 && !SCRIPT.test(real)) continue;
        const text = readBoundedText(real, NAMED_FILE_BYTES, { cut: true });
        const sha256 = createHash("sha256").update(`${stat.size}\0${text}`).digest("hex");
        found.set(relative(root, real), sha256);
      } catch {
        // not a file (a program on PATH, a flag, a word of a shell script)
      }
    }
  }
  return [...found].sort(([a], [b]) => a.localeCompare(b)).map(([file, sha256]) => ({ file, sha256 }));
}

/** The words of a shell command line, roughly: enough to find the files it runs (not what it writes to). */
export function commandWords(command: string): string[] {
  return command
    .replace(/\d*>>?\s*\S+/g, " ")
    .split(/[\s;&|()<>`'"]+/)
    .filter(Boolean);
}

/** The project's hooks file as an item to approve; undefined when there is none. */
export function hooksItem(project: string): { item: ProjectItem; commands: HookCommand[] } | undefined {
  const hooks = readProjectHooks(project);
  if (!hooks) return undefined;
  return {
    commands: hooks.commands,
    item: {
      kind: HOOKS_TRUST_KIND,
      name: ".relm/hooks.json",
      file: relative(project, projectHooksFile(project)),
      runs: hooks.commands.map(hookLine),
      sha256: hooksHash(project, hooks.raw, hooks.commands),
    },
  };
}

/** The hooks file's hash, with the project's files its commands run (as they are now) when there are any. */
function hooksHash(project: string, raw: unknown, commands: readonly HookCommand[]): string {
  const files = namedProjectFiles(
    commands.flatMap((c) => commandWords(c.command)),
    project,
  );
  return contentHash(files.length > 0 ? { hooks: raw, files } : raw);
}

/** A spec's `kernel:` as an item to approve (the rest of a spec is text for the model, not a command). */
export function specKernelItem(
  project: string,
  spec: { name: string; path: string; kernel: string },
): ProjectItem {
  const file = relative(project, spec.path);
  return {
    kind: SPEC_KERNEL_TRUST_KIND,
    name: spec.name,
    file,
    runs: [`sub-agent "${spec.name}" runs its kernel on ${spec.kernel}`],
    sha256: contentHash({ file, kernel: spec.kernel }),
  };
}

/** The one line a session without anyone to ask says about what it left unused. */
export function untrustedNote(items: readonly { item: ProjectItem; state: ItemState }[]): string {
  const names = items.map(
    ({ item, state }) =>
      `${item.file}${item.kind === "mcp" ? ` (${item.name})` : ""}${state === "changed" ? " (changed)" : ""}`,
  );
  return (
    `project files not trusted, so not used: ${[...new Set(names)].join(", ")}; ` +
    "review what they run and approve them with `relm trust`"
  );
}
