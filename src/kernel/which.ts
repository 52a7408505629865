// Finding a command as a shell would: the one lookup of the interpreter probe, bubblewrap and the
// container engines.
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/** Whether `file` is a regular file this process may execute. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** What a launcher says of a command `which` did not find (the PATH it looked in included). */
export function notInstalled(name: string, env: NodeJS.ProcessEnv): string {
  return `${name} is not installed here (not on PATH ${env.PATH ?? ""})`;
}

/** The absolute path of command `name` on env.PATH (a name with a slash: itself), or undefined. */
export function which(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const dirs = name.includes("/") ? [""] : (env.PATH ?? "").split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const file = dir ? path.join(dir, name) : path.resolve(name);
    if (isExecutable(file)) return file;
  }
  return undefined;
}
