// Where a working directory's shadow repository lives and how it is set up.

import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { makeDirs } from "../config/dirs.js";
import { within } from "../config/paths.js";
import { type GitContext, gitText, runGit } from "./git.js";

/** `$RELM_HOME/checkpoints/<hash>`: one per real path of a working directory, whatever the session. */
export function shadowDirFor(home: string, realCwd: string): string {
  const hash = createHash("sha256").update(realCwd).digest("hex").slice(0, 20);
  return join(home, "checkpoints", hash);
}

/**
 * info/attributes wins over every .gitattributes in the work tree: no end-of-line conversion, no filters
 * (git-lfs and friends), so a snapshot holds the exact bytes and a restore writes them back unchanged.
 */
const ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -diff\n";

const CONFIG = `[core]
\tbare = false
\tautocrlf = false
\tsafecrlf = false
\tuntrackedCache = true
\tquotePath = false
[gc]
\tauto = 0
[advice]
\taddEmbeddedRepo = false
\taddIgnoredFile = false
[commit]
\tgpgSign = false
`;

/** Escapes a literal path for a gitignore pattern, anchored at the work tree root. */
function ignorePattern(path: string): string {
  return `/${path
    .split(sep)
    .join("/")
    .replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}/`;
}

function userExcludesFile(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  const candidates = [
    xdg ? join(xdg, "git", "ignore") : undefined,
    join(env.HOME ?? homedir(), ".config", "git", "ignore"),
  ];
  return candidates.find((p) => p !== undefined && existsSync(p));
}

/** The user's own core.excludesFile (read-only look at their config), else git's default location. */
async function resolveUserExcludes(
  git: string,
  userEnv: NodeJS.ProcessEnv,
  cwd: string,
): Promise<string | undefined> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(userEnv)) if (!k.startsWith("GIT_")) env[k] = v;
  try {
    const ctx: GitContext = { git, gitDir: "", workTree: cwd, env };
    const configured = await gitText(ctx, ["config", "--global", "--path", "--get", "core.excludesFile"], {
      okCodes: [1],
      timeoutMs: 10_000,
    });
    if (configured && existsSync(configured)) return configured;
  } catch {
    // No global config, or a git too old for --path: fall back to the default location.
  }
  return userExcludesFile(userEnv);
}

interface ShadowSetup {
  ctx: GitContext;
  realCwd: string;
  home: string;
  userEnv: NodeJS.ProcessEnv;
}

/**
 * Creates the repository on first use and refreshes its excludes every time: the user's own
 * .git/info/exclude may have changed, and relm's home must never be snapshotted into itself.
 */
export async function prepareShadow({ ctx, realCwd, home, userEnv }: ShadowSetup): Promise<void> {
  if (!existsSync(join(ctx.gitDir, "HEAD"))) {
    await runGit(ctx, ["init", "--quiet"]);
    // Appended rather than set one by one: a git call costs ~10 ms, and init's own probes
    // (filemode, symlinks, case) stay in the [core] section above.
    appendFileSync(join(ctx.gitDir, "config"), CONFIG);
    writeFileSync(join(ctx.gitDir, "relm-cwd"), `${realCwd}\n`);
  }
  const info = join(ctx.gitDir, "info");
  makeDirs(info);
  writeFileSync(join(info, "attributes"), ATTRIBUTES);
  const lines = [
    "# written by relm: the user's repositories and relm's own state are never snapshotted",
    ".git",
  ];
  const relHome = relative(realCwd, home);
  if (relHome === "") lines.push("/*");
  else if (within(home, realCwd)) lines.push(ignorePattern(relHome));
  // Their patterns are relative to the work tree root, as in info/exclude, so they can be copied.
  const sources = [
    join(realCwd, ".git", "info", "exclude"),
    await resolveUserExcludes(ctx.git, userEnv, dirname(ctx.gitDir)),
  ];
  for (const source of sources) {
    if (!source) continue;
    try {
      lines.push(`# from ${source}`, readFileSync(source, "utf8"));
    } catch {
      // No repository here, or .git is a file (a worktree): nothing more to exclude.
    }
  }
  writeFileSync(join(info, "exclude"), `${lines.join("\n")}\n`);
}
