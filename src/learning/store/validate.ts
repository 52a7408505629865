import { oneLine } from "../../config/text.js";
import { LIMITS, overLimit, roomHint, usageOf } from "./limits.js";
import { type Current, entriesOf, normaliseText } from "./state.js";
import { type Entry, type EntryKind, type Intent, KINDS, type ScopeLocation } from "./types.js";

const TITLE_CHARS = 80;

const SKILL_NAME = /^[a-z][a-z0-9_]{0,39}$/;
const AGENT_NAME = /^[A-Za-z0-9][\w.-]{0,39}$/;
const BASE_WORDS = new Set(["base", "system", "base_prompt", "system_prompt"]);

type Checked = { ok: true; intent: Intent } | { ok: false; reason: string };

interface CheckContext {
  /** The scope being edited: its state, and where it is (its name and how to make room in it, for messages). */
  state: Current;
  location: Pick<ScopeLocation, "scope" | "dir">;
  /** Entries of every other scope, for duplicates. */
  others: readonly Entry[];
  /** Intents already accepted in this batch, for duplicates within it. */
  batch: readonly Intent[];
  /** Refine edits must cite events; hand edits need not. */
  requireEvidence: boolean;
  source: "refine" | "user";
}

/** A hypothesis is one line of what the edit should change; longer ones are cut. */
const HYPOTHESIS_CHARS = 300;

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Why a name is unusable for this kind, or undefined when it is fine. */
export function checkName(kind: EntryKind, title: string): string | undefined {
  if (kind === "skill" && !SKILL_NAME.test(title)) {
    return `skill name "${title}" must be a Python module name: lowercase letters, digits and _, at most 40`;
  }
  if (kind === "agent" && !AGENT_NAME.test(title)) {
    return `agent spec name "${title}" must be letters, digits, ".", "_" or "-", at most 40`;
  }
  return undefined;
}

function checkText(kind: EntryKind, title: string, content: string): string | undefined {
  if (content.trim() === "") return "content is empty";
  const limit = LIMITS[kind].chars;
  if (content.length > limit)
    return `content is ${content.length} chars; a ${kind} may have at most ${limit}`;
  if (title.length > TITLE_CHARS) return `title is ${title.length} chars; at most ${TITLE_CHARS}`;
  if (title.includes("\n")) return "title must be one line";
  return checkName(kind, title);
}

function duplicateOf(kind: EntryKind, title: string, content: string, ctx: CheckContext, skip?: string) {
  const text = normaliseText(content);
  const name = kind === "skill" || kind === "agent" ? title : undefined;
  const existing = [...entriesOf(ctx.state), ...ctx.others];
  for (const e of existing) {
    if (e.id === skip) continue;
    if (normaliseText(e.content) === text) return `duplicates entry ${e.id} (same text)`;
    if (name !== undefined && e.kind === kind && e.title === name)
      return `a ${kind} named "${name}" exists (${e.id})`;
  }
  for (const i of ctx.batch) {
    if (i.op === "remove") continue;
    if (i.content !== undefined && normaliseText(i.content) === text)
      return "duplicates another edit in this refinement";
  }
  return undefined;
}

function evidenceOf(raw: Record<string, unknown>, required: boolean): number[] | string | undefined {
  const ev = raw.evidence;
  if (ev === undefined || ev === null)
    return required ? "cites no evidence (journal event numbers)" : undefined;
  if (!Array.isArray(ev) || ev.some((n) => typeof n !== "number" || !Number.isInteger(n) || n < 1)) {
    return "evidence must be a list of journal event numbers";
  }
  if (required && ev.length === 0) return "cites no evidence (journal event numbers)";
  return [...new Set(ev as number[])];
}

/** Checks one proposed edit mechanically: shape, kind, size, target, duplicates and the scope's limits. */
export function checkIntent(raw: unknown, ctx: CheckContext): Checked {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return { ok: false, reason: "not an object" };
  const r = raw as Record<string, unknown>;
  const op = str(r.op) ?? "add";
  const kindText = str(r.kind);
  const id = str(r.id);
  if ((kindText && BASE_WORDS.has(kindText.toLowerCase())) || (id && BASE_WORDS.has(id.toLowerCase()))) {
    return { ok: false, reason: "the base system prompt is fixed; propose a prompt entry instead" };
  }
  const room = roomHint(ctx.location);
  const evidence = evidenceOf(r, ctx.requireEvidence);
  if (typeof evidence === "string") return { ok: false, reason: evidence };
  const reason = str(r.reason);
  const hypothesis = hypothesisOf(r.hypothesis);
  const said = hypothesis ? { hypothesis } : {};
  if (op === "add") {
    if (!kindText || !(KINDS as readonly string[]).includes(kindText)) {
      return { ok: false, reason: `kind must be one of ${KINDS.join(", ")}` };
    }
    const kind = kindText as EntryKind;
    const content = str(r.content) ?? "";
    const title = (str(r.title) ?? "").trim();
    if ((kind === "skill" || kind === "agent") && title === "") {
      return { ok: false, reason: `a ${kind} needs its name as the title` };
    }
    const bad =
      checkText(kind, title, content) ??
      duplicateOf(kind, title, content, ctx) ??
      overLimit(
        kind,
        ctx.location.scope,
        usageWithBatch(kind, ctx),
        { added: 1, grow: content.length },
        room,
      );
    if (bad) return { ok: false, reason: bad };
    if (r.code !== undefined) {
      // Code becomes importable in every kernel, so it only comes through save_skill's smoke test.
      return { ok: false, reason: "skill code is saved only by harness.save_skill(), which tests it first" };
    }
    return { ok: true, intent: { op, kind, title, content, source: ctx.source, evidence, reason, ...said } };
  }
  if (op !== "update" && op !== "remove")
    return { ok: false, reason: `op must be add, update or remove, not "${op}"` };
  if (!id) return { ok: false, reason: `${op} needs the id of an entry` };
  const current = ctx.state.get(id)?.entry;
  if (!current) {
    const elsewhere = ctx.others.find((e) => e.id === id);
    return {
      ok: false,
      reason: elsewhere
        ? `entry ${id} is not in the ${ctx.location.scope} scope`
        : `no entry ${id} in the ${ctx.location.scope} scope`,
    };
  }
  if (ctx.batch.some((i) => i.op !== "add" && i.id === id)) {
    return { ok: false, reason: `entry ${id} is already edited by this refinement` };
  }
  if (op === "remove") return { ok: true, intent: { op, id, evidence, reason, ...said } };
  const title = str(r.title)?.trim() ?? current.title;
  const content = str(r.content) ?? current.content;
  if (title === current.title && content === current.content) return { ok: false, reason: "changes nothing" };
  const grow = { added: 0, grow: content.length - current.content.length };
  const bad =
    checkText(current.kind, title, content) ??
    duplicateOf(current.kind, title, content, ctx, id) ??
    overLimit(current.kind, ctx.location.scope, usageWithBatch(current.kind, ctx), grow, room);
  if (bad) return { ok: false, reason: bad };
  return { ok: true, intent: { op, id, title, content, evidence, reason, ...said } };
}

function hypothesisOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const line = oneLine(value, HYPOTHESIS_CHARS);
  return line === "" ? undefined : line;
}

/**
 * An add that copies `entry` into the scope of `ctx` (an import, a promotion), checked like any add; the
 * copy keeps the entry's id, creation time and code, so the same lesson is recognisable in both scopes.
 */
export function checkCopy(
  entry: Entry,
  ctx: Omit<CheckContext, "requireEvidence" | "source">,
  hypothesis?: string,
): Checked {
  const { kind, title, content } = entry;
  const source = entry.source ?? "user";
  const checked = checkIntent(
    { op: "add", kind, title, content, hypothesis },
    { ...ctx, requireEvidence: false, source },
  );
  if (!checked.ok || checked.intent.op !== "add") return checked;
  return { ok: true, intent: { ...checked.intent, id: entry.id, created: entry.created, code: entry.code } };
}

/** What the scope holds of `kind` once the edits already accepted in this batch are applied. */
function usageWithBatch(kind: EntryKind, ctx: CheckContext): { count: number; chars: number } {
  let { count, chars } = usageOf(entriesOf(ctx.state), kind);
  for (const i of ctx.batch) {
    if (i.op === "add") {
      if (i.kind !== kind) continue;
      count++;
      chars += i.content.length;
      continue;
    }
    const old = ctx.state.get(i.id)?.entry;
    if (old?.kind !== kind) continue;
    if (i.op === "remove") {
      count--;
      chars -= old.content.length;
    } else if (i.content !== undefined) chars += i.content.length - old.content.length;
  }
  return { count, chars };
}
