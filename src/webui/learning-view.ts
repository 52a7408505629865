// The learning view of a session (issue 25): the lessons of the continual harness that apply to it — its
// own scope, the project's lessons on probation, the project's and the user's — with their state and the
// verdict on the revision that last changed each, the recent revisions of each scope with their diffs,
// and what the session's journal says learning did (passes, lesson notes, verdicts, replay checks, the
// lessons it started with on probation). Read-only: it opens the stores and logs the harness commands
// read, and writes nothing. Every string is redacted of the secrets this process knows, as exports are.
import { join } from "node:path";
import { secretValues } from "../agent/core/redact.js";
import {
  type EntryState,
  formatEdits,
  type HarnessContext,
  HarnessStore,
  type Revision,
  SCOPES,
  scopeLocation,
  VerdictLog,
  type VerdictRecord,
} from "../learning/store/index.js";
import {
  JOURNAL_FILE,
  type JournalEvent,
  type JournalHeader,
  readJournal,
  readJournalHeader,
  sessionDir,
} from "../session/index.js";
import { learningNotice } from "../session/learning-notice.js";
import { Redactor } from "../session/redact.js";
import type { Judged, LearningView, LessonView, RevisionView, ScopeView } from "./learning-types.js";

/** Revisions of each scope sent, newest first: the view is about what applies now, `relm harness log` has all. */
const MAX_REVISIONS = 20;

const LEARNING_EVENTS = new Set([
  "learn",
  "lesson",
  "harness_verdict",
  "harness_verify",
  "harness_probation",
]);

export function learningView(home: string, id: string, env: NodeJS.ProcessEnv): LearningView {
  const dir = sessionDir(home, id);
  const { header, events } = journalOf(join(dir, JOURNAL_FILE));
  let learning: boolean | null = null;
  const startedOnProbation = new Set<string>();
  const lines: LearningView["events"] = [];
  for (const event of events) {
    if (event.type === "learn_mode") learning = event.on;
    if (event.type === "harness_probation") for (const e of event.entries) startedOnProbation.add(e);
    if (!LEARNING_EVENTS.has(event.type)) continue;
    const notice = learningNotice(event);
    const text =
      notice?.text ??
      (event.type === "lesson"
        ? `✎ lesson note (${event.scope}, revision ${event.revision}): ${event.text}`
        : "");
    if (text) lines.push({ n: event.n, t: event.t, text, tone: notice?.tone ?? "learned" });
  }
  const ctx: HarnessContext = { cwd: header.cwd, home, sessionDir: dir };
  const scopes = SCOPES.map((scope) => scopeView(scope, ctx, startedOnProbation));
  const redactor = new Redactor(secretValues(env));
  return redactAll(
    { learning, startedOnProbation: [...startedOnProbation], scopes, events: lines },
    redactor,
  ) as LearningView;
}

/** The session's journal; of a damaged one, its header alone (the harness's files still say the rest). */
function journalOf(path: string): { header: JournalHeader; events: JournalEvent[] } {
  try {
    return readJournal(path);
  } catch {
    return { header: readJournalHeader(path), events: [] };
  }
}

function scopeView(scope: (typeof SCOPES)[number], ctx: HarnessContext, started: Set<string>): ScopeView {
  const location = scopeLocation(scope, ctx);
  const store = new HarnessStore(location);
  let revisions: Revision[];
  let entries: EntryState[];
  try {
    revisions = store.revisions();
    entries = store.entries();
  } catch (error) {
    return { scope, lessons: [], revisions: [], total: 0, error: (error as Error).message };
  }
  const log = new VerdictLog(location, ctx.home);
  const verdicts = new Map<string, VerdictRecord>();
  const pinned = scope === "probation" ? log.pinnedEntries() : new Set<string>();
  for (const r of log.records()) if (r.type === "verdict") verdicts.set(r.rev, r);
  const judged = (rev: string): Judged | undefined => {
    const v = verdicts.get(rev);
    if (!v) return undefined;
    const { verdict, final, summary, reverted, promoted } = v;
    return { verdict, final, summary, ...(reverted ? { reverted } : {}), ...(promoted ? { promoted } : {}) };
  };
  const byRev = new Map(revisions.map((r) => [r.rev, r]));
  // A lesson on probation is judged on the revision that carried it forward.
  const lessons = entries.map((e): LessonView => {
    const edit = byRev.get(e.rev)?.edits.find((d) => d.id === e.id);
    const state =
      scope !== "probation"
        ? "in force"
        : pinned.has(e.id)
          ? "on probation, pinned"
          : started.has(e.id)
            ? "on probation (in this session's prompt)"
            : "on probation";
    const verdict = judged(e.rev);
    return {
      id: e.id,
      kind: e.kind,
      title: e.title,
      content: e.content,
      source: e.source,
      rev: e.rev,
      uses: e.uses,
      state,
      ...(edit?.hypothesis ? { hypothesis: edit.hypothesis } : {}),
      ...(verdict ? { verdict } : {}),
    };
  });
  const recent = revisions.slice(-MAX_REVISIONS).reverse();
  return {
    scope,
    lessons,
    total: revisions.length,
    revisions: recent.map((r): RevisionView => {
      const verdict = judged(r.rev);
      return {
        rev: r.rev,
        seq: r.seq,
        time: r.time,
        author: r.author,
        reason: r.reason,
        diff: formatEdits(r.edits),
        ...(r.revert ? { revert: r.revert } : {}),
        ...(verdict ? { verdict } : {}),
      };
    }),
  };
}

/** Every string in `value` redacted (values, not the serialised text, so escapes are never cut). */
function redactAll(value: unknown, redactor: Redactor): unknown {
  if (typeof value === "string") return redactor.text(value);
  if (Array.isArray(value)) return value.map((v) => redactAll(v, redactor));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactAll(v, redactor)]));
  return value;
}
