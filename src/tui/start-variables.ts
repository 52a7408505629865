import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PendingStart } from "../commands/types.js";
import { makeDirs } from "../config/dirs.js";
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
  makeDirs(dir, 0o700);
  const args: string[] = [];
  for (const v of variables) {
    const file = join(dir, `${v.name}.txt`);
    writeFileSync(file, v.text, { mode: 0o600 });
    args.push("--var", `${v.name}=@${file}`);
  }
  return args;
}

/** A new host's extra arguments: the first message's pastes, and what was chosen before it. */
export function startArgs(
  home: string,
  id: string,
  variables: { name: string; text: string }[],
  pending: PendingStart,
): string[] {
  const extra = writeStartVariables(home, id, variables);
  if (pending.model) extra.push("--model", pending.model);
  if (pending.goal) extra.push("--goal", pending.goal);
  if (pending.learn) extra.push("--learn");
  if (pending.gates) {
    if (pending.gates.length === 0) extra.push("--autonomous");
    for (const gate of pending.gates) extra.push("--gate", gate);
  }
  return extra;
}
