import { createHash } from "node:crypto";
import { chmodSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../../config/dirs.js";
import { UserError } from "../../config/errors.js";
import { realPath, within } from "../../config/paths.js";
import { projectRoot } from "../../config/project-root.js";
import type { HarnessContext, Scope, ScopeLocation } from "./types.js";

export { projectRoot };

/** A scope that cannot be opened as asked (e.g. the session scope without a session). */
export class HarnessScopeError extends UserError {
  override name = "HarnessScopeError";
  override readonly exitCode = 2;
  readonly code = "usage";
}

/**
 * Project folders whose harness this process must not write: a sandbox of this process opened before
 * the project had a `.relm/`, so its code can write what relm would create there, and a link it planted
 * would lead relm's writes anywhere (a skill's files into the user's site-packages). Real path → why.
 */
const lockedProjects = new Map<string, string>();

/** Refuses writes to the harness of projects at or below `dir` until the returned function is called. */
export function lockProjectScope(dir: string, reason: string): () => void {
  const key = realPath(dir);
  lockedProjects.set(key, reason);
  return () => {
    if (lockedProjects.get(key) === reason) lockedProjects.delete(key);
  };
}

function lockOf(root: string): string | undefined {
  if (lockedProjects.size === 0) return undefined;
  const real = realPath(root);
  for (const [dir, reason] of lockedProjects) if (within(real, dir)) return reason;
  return undefined;
}

/**
 * The key of a project under $RELM_HOME: a hash of its harness folder (`.relm/harness`). The project's
 * verdicts (`verdicts/HASH/`) and its lessons on probation (`projects/HASH/harness/`) share it.
 */
export function projectHash(projectHarnessDir: string): string {
  return createHash("sha256").update(projectHarnessDir).digest("hex").slice(0, 20);
}

export function scopeLocation(scope: Scope, ctx: HarnessContext): ScopeLocation {
  switch (scope) {
    case "user":
      return { scope, dir: join(ctx.home, "harness"), skillsDir: join(ctx.home, "skills"), private: true };
    case "project": {
      const root = projectRoot(ctx.cwd);
      const locked = lockOf(root);
      return {
        scope,
        dir: join(root, ".relm", "harness"),
        skillsDir: join(root, ".relm", "skills"),
        private: false,
        ...(locked ? { locked } : {}),
      };
    }
    case "probation": {
      // Private and outside the working tree: lessons no verdict has vouched for yet must not land in a
      // team's repository, nor in a folder sandboxed kernels can write.
      const dir = join(ctx.home, "projects", projectHash(join(projectRoot(ctx.cwd), ".relm", "harness")));
      return { scope, dir: join(dir, "harness"), skillsDir: join(dir, "harness", "skills"), private: true };
    }
    case "session":
      if (!ctx.sessionDir) {
        throw new HarnessScopeError("the session scope needs a session: give --session ID");
      }
      return {
        scope,
        dir: join(ctx.sessionDir, "harness"),
        skillsDir: join(ctx.sessionDir, "harness", "skills"),
        private: true,
      };
  }
}

/** The harness of a session's root agent: its working directory, home, and its folder as the session scope. */
export function rootContext(root: {
  readonly cwd: string;
  readonly home: string;
  readonly dir: string;
}): HarnessContext & { sessionDir: string } {
  return { cwd: root.cwd, home: root.home, sessionDir: root.dir };
}

/** Skill folders discovered besides the scopes' own: the Agent Skills location of the project. */
export function agentsSkillsDir(cwd: string): string {
  return join(projectRoot(cwd), ".agents", "skills");
}

/** mkdir -p; private folders are 0700 (tightened when they already exist and are ours). */
export function ensureDir(path: string, isPrivate: boolean): void {
  makeDirs(path, isPrivate ? 0o700 : 0o755);
  if (!isPrivate) return;
  const st = statSync(path);
  if (st.uid === process.getuid?.() && (st.mode & 0o777) !== 0o700) chmodSync(path, 0o700);
}

/** Writes a whole file; private files are 0600 whatever the umask. */
export function writeFile(path: string, data: string, isPrivate: boolean): void {
  writeFileSync(path, data, { mode: isPrivate ? 0o600 : 0o644 });
  if (isPrivate) chmodSync(path, 0o600);
}
