import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PendingStart } from "../commands/types.js";
import { makeDirs } from "../config/dirs.js";
import type { SessionSpec } from "../config/options.js";
import { sessionDir } from "../session/index.js";

/**
 * Pastes sent with a session's first message: written into the new session's own directory (user-only)
 * and handed to its host as `--var NAME=@FILE`, so they are kernel variables before the first cell runs.
 * Returns the --var values.
 */
function writeStartVariables(
  home: string,
  id: string,
  variables: { name: string; text: string }[],
): string[] {
  if (variables.length === 0) return [];
  const dir = join(sessionDir(home, id), "inputs");
  makeDirs(dir, 0o700);
  const values: string[] = [];
  for (const v of variables) {
    const file = join(dir, `${v.name}.txt`);
    writeFileSync(file, v.text, { mode: 0o600 });
    values.push(`${v.name}=@${file}`);
  }
  return values;
}

/** A new host's own options: the first message's pastes, and what was chosen before it. */
export function startSpec(
  home: string,
  id: string,
  variables: { name: string; text: string }[],
  pending: PendingStart,
): SessionSpec {
  const extra: SessionSpec = {};
  const values = writeStartVariables(home, id, variables);
  if (values.length > 0) extra.var = values;
  if (pending.model) extra.model = pending.model;
  if (pending.mode) extra.mode = pending.mode;
  if (pending.goal) extra.goal = pending.goal;
  if (pending.learn) extra.learn = true;
  if (pending.gates) {
    if (pending.gates.length === 0) extra.autonomous = true;
    else extra.gate = pending.gates;
  }
  return extra;
}
