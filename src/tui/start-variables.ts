import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PendingStart } from "../commands/types.js";
import { makeDirs } from "../config/dirs.js";
import type { SessionSpec } from "../config/options.js";
import { sessionDir } from "../session/index.js";

/**
 * A new host's own options: what was chosen before the first message, and that message's pastes, written
 * into the new session's own directory (user-only) and handed to its host as `--var NAME=@FILE`, so they
 * are kernel variables before the first cell runs.
 */
export function startSpec(
  home: string,
  id: string,
  variables: { name: string; text: string }[],
  pending: PendingStart,
): SessionSpec {
  const extra: SessionSpec = {};
  if (variables.length > 0) {
    const dir = join(sessionDir(home, id), "inputs");
    makeDirs(dir, 0o700);
    extra.var = variables.map((v) => {
      const file = join(dir, `${v.name}.txt`);
      writeFileSync(file, v.text, { mode: 0o600 });
      return `${v.name}=@${file}`;
    });
  }
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
