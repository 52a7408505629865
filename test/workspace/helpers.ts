import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../support/cli.js";

/** A git environment free of the developer's own configuration. */
export function userGitEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_")) env[k] = v;
  return {
    ...env,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "user",
    GIT_AUTHOR_EMAIL: "user@example.com",
    GIT_COMMITTER_NAME: "user",
    GIT_COMMITTER_EMAIL: "user@example.com",
  };
}

export function git(cwd: string, args: string[], env: NodeJS.ProcessEnv): string {
  return execFileSync("git", args, { cwd, env, encoding: "utf8" });
}

export function write(root: string, path: string, data: string | Buffer): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), data);
}

/** Every entry under `root` (except `skip` dirs): path → content hash, mode and kind. */
export function treeState(root: string, skip: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      if (skip.includes(path)) continue;
      const abs = join(root, path);
      const st = lstatSync(abs);
      if (st.isDirectory()) {
        out[`${path}/`] = "dir";
        walk(path);
      } else if (st.isSymbolicLink()) out[path] = `link:${readlinkSync(abs)}`;
      else {
        const hash = createHash("sha256").update(readFileSync(abs)).digest("hex").slice(0, 16);
        out[path] = `${(st.mode & 0o777).toString(8)}:${hash}`;
      }
    }
  };
  walk("");
  return out;
}

export interface Workspace {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** A RELM_HOME and a working directory that is the user's own git repository with one commit. */
export function userRepo(): Workspace {
  const home = tempDir("relm-home-");
  const cwd = tempDir("relm-cwd-");
  const env = userGitEnv(home.path);
  git(cwd.path, ["init", "-q"], env);
  write(cwd.path, ".gitignore", "*.log\nbuild/\n");
  write(cwd.path, "src/main.py", "print('hello')\n");
  write(cwd.path, "README.md", "# project\n");
  git(cwd.path, ["add", "-A"], env);
  git(cwd.path, ["commit", "-qm", "initial"], env);
  return {
    home: home.path,
    cwd: cwd.path,
    env,
    cleanup: () => {
      home.cleanup();
      cwd.cleanup();
    },
  };
}
