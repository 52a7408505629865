import { randomBytes } from "node:crypto";
import { join, relative, sep } from "node:path";
import type { KernelCaller } from "../../agent/hooks.js";
import { asRecord, KernelCallError, optionalString, requiredString } from "../../agent/kernel-api/errors.js";
import { within } from "../../config/paths.js";
import { sessionsDir } from "../../session/index.js";
import { applyRefinement, proposeForSession, type Refinement } from "../refine/refine.js";
import { recordProposal } from "../refine/refine-proposals.js";
import {
  checkName,
  type Edit,
  findSkills,
  type HarnessContext,
  HarnessLimitError,
  HarnessStore,
  LIMITS,
  loadHarness,
  revisionSummary,
  SCOPES,
  type Scope,
  scopeLocation,
  skillUseKey,
  useKey,
  WRITABLE_SCOPES,
} from "../store/index.js";
import { KERNEL_KEEP, PendingRefinements } from "./pending-refinements.js";
import { teachTree } from "./teach.js";

const CODE_CHARS = 100_000;
// Refinements shown to a cell and not yet applied, per agent, by id: the newest KERNEL_KEEP.count, for as
// long as the agent runs (pending-refinements.ts says why).
const pending = new WeakMap<KernelCaller, PendingRefinements<Refinement>>();

/** The root session's folder: the session scope of every agent of the tree. */
function rootSessionDir(home: string, dir: string): string {
  const root = sessionsDir(home);
  const rel = relative(root, dir);
  if (rel === "" || !within(dir, root)) return dir;
  return join(root, rel.split(sep)[0] as string);
}

function contextOf(agent: KernelCaller): HarnessContext & { sessionDir: string } {
  const { cwd, home } = agent.tree.options;
  return { cwd, home, sessionDir: rootSessionDir(home, agent.dir) };
}

/** The scope a call names (default session); one it writes (`write`) is never probation, which relm alone fills. */
function scopeOf(params: Record<string, unknown>, write = true): Scope {
  const scope = optionalString(params, "scope") ?? "session";
  const allowed: readonly string[] = write ? WRITABLE_SCOPES : SCOPES;
  if (!allowed.includes(scope)) {
    throw new KernelCallError(`scope must be one of ${allowed.join(", ")}, not "${scope}"`, "usage");
  }
  return scope as Scope;
}

function editView(edit: Edit) {
  const e = edit.after ?? edit.before;
  return {
    op: edit.op,
    id: edit.id,
    kind: e?.kind,
    title: e?.title,
    content: e?.content,
    evidence: edit.evidence ?? [],
    reason: edit.reason ?? null,
    hypothesis: edit.hypothesis ?? null,
  };
}

function refinementView(id: string, ref: Refinement) {
  return {
    id,
    session: ref.session,
    scope: ref.scope,
    model: ref.model,
    events: [ref.trajectory.from, ref.trajectory.to],
    edits: ref.accepted.map((a) => editView(a.edit)),
    rejected: ref.rejected.map((r) => ({ index: r.index, reason: r.reason, edit: r.edit })),
    diff: ref.diff,
    // Why nothing was proposed: a call the budgets refused (skipped) is said too, not left as "no edits".
    error: ref.error ?? ref.held ?? (ref.skipped ? `not run: ${ref.skipped}` : null),
  };
}

function apply(agent: KernelCaller, ref: Refinement) {
  const ctx = contextOf(agent);
  const result = applyRefinement(ref, ctx);
  // The agent that asked, and every other running agent of the tree, read it before their next request.
  const taught = result.revision ? teachTree(agent.tree, result.revision, ref.scope, ctx) : [];
  return {
    revision: result.revision?.rev ?? null,
    summary: result.revision ? revisionSummary(result.revision) : null,
    dropped: result.dropped.map((d) => ({ reason: d.reason })),
    taught,
    note:
      taught.length > 0
        ? "applied to the harness on disk; the running agents of this session read it as a note before their next model request, and their system prompts carry it from their next compaction"
        : "nothing was applied",
  };
}

async function refine(agent: KernelCaller, params: Record<string, unknown>, refineModel?: string) {
  const stop = agent.budget.check();
  if (stop) throw new KernelCallError(`harness.refine: ${stop.message}`, "budget");
  const model = optionalString(params, "model") ?? refineModel;
  const client = model ? agent.tree.client(model) : agent.model.current;
  const ref = await proposeForSession(agent, {
    journalPath: agent.journal.path,
    ctx: contextOf(agent),
    scope: scopeOf(params),
    client,
    requireHypothesis: true,
  });
  const id = randomBytes(4).toString("hex");
  const view = refinementView(id, ref);
  if (params.apply === true && ref.accepted.length > 0) return { ...view, applied: apply(agent, ref) };
  if (ref.accepted.length > 0) {
    const mine = pending.get(agent) ?? new PendingRefinements<Refinement>(KERNEL_KEEP);
    mine.keep(id, ref);
    pending.set(agent, mine);
  }
  return { ...view, applied: null };
}

function saveSkill(agent: KernelCaller, params: Record<string, unknown>) {
  const name = requiredString(params, "name");
  const description = requiredString(params, "description").trim();
  const code = requiredString(params, "code");
  const bad = checkName("skill", name);
  if (bad) throw new KernelCallError(bad, "usage");
  if (!description || description.length > LIMITS.skill.chars) {
    throw new KernelCallError(
      `description must be 1 to ${LIMITS.skill.chars} chars, one line of what it does`,
      "usage",
    );
  }
  if (code.length > CODE_CHARS) throw new KernelCallError(`code is over ${CODE_CHARS} chars`, "usage");
  const ctx = contextOf(agent);
  const scope = scopeOf(params);
  const location = scopeLocation(scope, ctx);
  const store = new HarnessStore(location);
  const manual = findSkills(ctx).skills.find(
    (s) => s.module === name && s.entryId === undefined && s.dir === join(location.skillsDir, name),
  );
  if (manual) {
    throw new KernelCallError(
      `a skill folder ${manual.dir} exists that the harness does not manage; pick another name`,
      "usage",
    );
  }
  const existing = [...store.state().values()].find(
    (s) => s.entry.kind === "skill" && s.entry.title === name,
  );
  const result = commitOrRefuse(() =>
    store.commit({
      intents: existing
        ? [{ op: "update", id: existing.entry.id, content: description, code }]
        : [{ op: "add", kind: "skill", title: name, content: description, code, source: "user" }],
      author: `agent ${agent.id}`,
      reason: `harness.save_skill("${name}")`,
    }),
  );
  const rev = result.revision;
  if (!rev) throw new KernelCallError(result.dropped[0]?.reason ?? "nothing was saved", "conflict");
  return { name, scope, path: join(location.skillsDir, name), entry: rev.edits[0]?.id, revision: rev.rev };
}

/** A write the scope has no room for is the cell's to fix: a ValueError saying how, not an internal error. */
function commitOrRefuse<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (error instanceof HarnessLimitError) throw new KernelCallError(error.message, "usage");
    throw error;
  }
}

function used(agent: KernelCaller, params: Record<string, unknown>) {
  const ctx = contextOf(agent);
  const skill = optionalString(params, "skill");
  if (skill) {
    const found = findSkills(ctx).skills.find((s) => (s.module ?? s.name) === skill);
    if (!found) return { counted: false };
    HarnessStore.of(found.scope, ctx).recordUse(skillUseKey(found), agent.id);
    return { counted: true };
  }
  const id = requiredString(params, "id");
  const entry = loadHarness(ctx).entries.find((e) => e.id === id);
  if (!entry) throw new KernelCallError(`no harness entry ${id}`, "not_found");
  HarnessStore.of(entry.scope, ctx).recordUse(useKey(entry), agent.id);
  return { counted: true };
}

/**
 * Answers `harness.*` calls from python/relm/harness.py; `refineModel` (config's) is the one
 * `harness.refine()` uses when the call names none, else the calling agent's own model.
 */
export async function handleHarnessRequest(
  agent: KernelCaller,
  method: string,
  raw: unknown,
  refineModel?: string,
): Promise<unknown> {
  const params = asRecord(raw ?? {}, method);
  switch (method) {
    case "harness.state": {
      const ctx = contextOf(agent);
      const loaded = loadHarness(ctx);
      const scopes = Object.fromEntries(SCOPES.map((s) => [s, scopeLocation(s, ctx).dir]));
      return { entries: loaded.entries, skills: loaded.skills, scopes };
    }
    case "harness.log": {
      const store = HarnessStore.of(scopeOf(params, false), contextOf(agent));
      return { revisions: store.revisions().map((r) => ({ ...r, summary: revisionSummary(r) })) };
    }
    case "harness.propose": {
      const edit = asRecord(params.edit, "harness.propose: edit");
      const event = agent.journal.lastN;
      const dir = scopeLocation("session", contextOf(agent)).dir;
      recordProposal(dir, { t: new Date().toISOString(), agent: agent.id, event, edit });
      return { event };
    }
    case "harness.refine":
      return refine(agent, params, refineModel);
    case "harness.apply": {
      const id = requiredString(params, "id");
      const mine = pending.get(agent);
      const ref = mine?.take(id);
      if (!ref && mine?.wasForgotten(id))
        throw new KernelCallError(
          `refinement ${id} was forgotten: only the ${KERNEL_KEEP.count} newest refinements not yet applied ` +
            "are kept, and newer ones came after it; run harness.refine() again (or harness.refine(apply=True) to apply at once)",
          "not_found",
        );
      if (!ref)
        throw new KernelCallError(
          `no refinement ${id} waiting to be applied (each applies once)`,
          "not_found",
        );
      return apply(agent, ref);
    }
    case "harness.save_skill":
      return saveSkill(agent, params);
    case "harness.used":
      return used(agent, params);
    case "harness.revert": {
      const store = HarnessStore.of(scopeOf(params), contextOf(agent));
      const rev = store.revert(requiredString(params, "rev"), {
        force: params.force === true,
        author: `agent ${agent.id}`,
      });
      return { revision: rev.rev, summary: revisionSummary(rev) };
    }
    default:
      throw new KernelCallError(`the host has no method "${method}"`, "not_found");
  }
}
