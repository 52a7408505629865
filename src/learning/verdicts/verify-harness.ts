// The harness a replay (`relm harness verify`) runs with, written into its scratch home and scratch
// project: every scope as it is now, except the judged revision's own scope, derived up to just before
// the revision ("without") or up to and including it ("with"). The two replays differ by that one edit.

import { cpSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../../config/dirs.js";
import {
  copyOf,
  deriveState,
  type Entry,
  entriesOf,
  type HarnessContext,
  HarnessStore,
  type Intent,
  openStores,
  type Revision,
  type Scope,
} from "../store/index.js";

export type Variant = "with" | "without";

function entriesAt(store: HarnessStore, revision: Revision, variant: Variant): Entry[] {
  const revisions = store.revisions();
  const index = revisions.findIndex((r) => r.rev === revision.rev);
  const upto = revisions.slice(0, variant === "with" ? index + 1 : index);
  return entriesOf(deriveState(upto));
}

function write(store: HarnessStore, entries: readonly Entry[], variant: Variant, rev: string): void {
  const seen = new Set<string>();
  const intents: Intent[] = [];
  for (const e of entries) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    intents.push(copyOf(e));
  }
  if (intents.length === 0) return;
  // A copy of entries held to the limits where they live, several scopes gathered into one.
  store.commit({ intents, author: "verify", reason: `replay ${variant} ${rev}`, unbounded: true });
}

/**
 * Writes the replay's harness. A session scope's entries go to the scratch project scope: the replay is
 * a new session, whose own scope starts empty. Hand-made skill folders of the user's home are copied.
 */
export function writeScratchHarness(
  real: HarnessContext,
  scope: Scope,
  revision: Revision,
  variant: Variant,
  scratch: Pick<HarnessContext, "home" | "cwd">,
): void {
  // The project of the scratch copy is the copy itself, whatever harness its files brought along.
  makeDirs(join(scratch.cwd, ".relm"));
  rmSync(join(scratch.cwd, ".relm", "harness"), { recursive: true, force: true });
  const userSkills = join(real.home, "skills");
  if (existsSync(userSkills)) cpSync(userSkills, join(scratch.home, "skills"), { recursive: true });
  const user: Entry[] = [];
  const project: Entry[] = [];
  // A session's lesson carried forward to probation is the same edit: neither replay gets it from there.
  const touched = new Set(revision.edits.map((e) => e.id));
  for (const store of openStores(real)) {
    if (store.scope === "session" && scope !== "session") continue;
    const entries =
      store.scope === scope
        ? entriesAt(store, revision, variant)
        : entriesOf(store.state()).filter(
            (e) => store.scope !== "probation" || scope !== "session" || !touched.has(e.id),
          );
    (store.scope === "user" ? user : project).push(...entries);
  }
  write(HarnessStore.of("user", scratch), user, variant, revision.rev);
  write(HarnessStore.of("project", scratch), project, variant, revision.rev);
}
