import { type EntryKind, type HarnessContext, projectRoot, type Scope } from "../store/index.js";

const FROM_COMPACTION =
  "in this session at once: each of its running agents (sub-agents too) reads the applied entries as a " +
  "note appended before its next model request, its system prompt carries them from its next compaction " +
  "(automatic when the conversation nears the model's context window, or at once with /compact), and " +
  "sub-agents started from now on get them in their prompt";

/** Where an edit of each writable scope takes effect (`root`: the project's folder). */
const WHERE: Partial<Record<Scope, (root: string) => string>> = {
  session: (root) =>
    `This session's own scope (no other session reads it; it is kept if the session is resumed): ${FROM_COMPACTION}. ` +
    `A copy goes on probation in the project ${root}: its next sessions start with it, marked as unproven, until its verdict promotes it to the project scope or retires it.`,
  project: (root) =>
    `New sessions of the project ${root} from now on; ${FROM_COMPACTION}. ` +
    "Other running sessions of the project pick it up at their own next compaction.",
  user: () =>
    `New sessions of this user in every project from now on; ${FROM_COMPACTION}. ` +
    "Other running sessions pick it up at their own next compaction.",
};

/**
 * Where applied edits take effect, in words that hold for this code: a session's prompt block is
 * rendered once when its tree starts (so the provider's prompt cache keeps hitting); an edit applied
 * mid-session reaches the running agents as an appended note (src/agent/lessons.ts) and their prompt
 * is renewed when a compaction rebuilds it (compactAgent reloads the harness, user + project + the
 * root session's own scope). New sessions load user and project scopes and the lessons on probation (a
 * session's refine edits are carried there); only this session (and its resumes) reads its session scope. Specs and skill packages are read once per session.
 */
export function whereRefinementApplies(scope: Scope, kinds: EntryKind[], ctx: HarnessContext): string {
  const parts = [WHERE[scope]?.(projectRoot(ctx.cwd))].filter((p) => p !== undefined);
  if (kinds.includes("agent")) {
    parts.push(
      'A sub-agent spec is listed in the prompt from then on, but rlm.spawn(spec="NAME") finds it only in new sessions.',
    );
  }
  if (kinds.includes("skill")) {
    parts.push(
      "A skill's Python package becomes importable in new sessions (kernels get their path at start).",
    );
  }
  return parts.join(" ");
}
