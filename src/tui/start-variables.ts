import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionDir } from "../session/index.js";

/**
 * Pastes sent with a session's first message: written into the new session's own directory (user-only)
 * and handed to its host as `--var NAME=@FILE`, so they are kernel variables before the first cell runs.
 * Returns the host arguments.
 */
export function writeStartVariables(
  home: string,
  id: string,
  variables: { name: string; text: string }[],
): string[] {
  if (variables.length === 0) return [];
  const dir = join(sessionDir(home, id), "inputs");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const args: string[] = [];
  for (const v of variables) {
    const file = join(dir, `${v.name}.txt`);
    writeFileSync(file, v.text, { mode: 0o600 });
    args.push("--var", `${v.name}=@${file}`);
  }
  return args;
}
