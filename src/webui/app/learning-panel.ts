// The learning view of a session (issue 25): the lessons of the continual harness that apply to it
// (memories, standing instructions, skills, sub-agent specs) by scope, each with its state (in force, on
// probation, pinned) and the verdict on the revision that last changed it (improved, neutral, regressed:
// its measured effect); each scope's recent revisions with their diffs, as `relm harness show` prints
// them; and what learning did in this session, a line each. Read from the server
// (src/webui/learning-view.ts, redacted there); asked again when the session journals a learning event.
// Every text here is a lesson a model may have written: it is shown as text, never as markup.
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import type {
  Judged,
  LearningView as Learning,
  LessonView as Lesson,
  RevisionView,
  ScopeView,
} from "../learning-types.js";

const RETRY_MS = 3000;
const RETRIES = 5;

const TONE: Record<string, string> = { improved: "var(--ok)", regressed: "var(--err)" };

function VerdictBadge({ v }: { v: Judged | undefined }) {
  if (!v) return html`<span class="verdict muted" data-verdict="none">no verdict yet</span>`;
  const what = `${v.verdict}${v.final || v.reverted ? "" : " so far"}${v.reverted ? `, reverted as ${v.reverted}` : ""}${v.promoted ? `, promoted as ${v.promoted}` : ""}`;
  return html`<span class="verdict" data-verdict=${v.verdict} title=${v.summary} style=${`color:${TONE[v.verdict] ?? "var(--muted)"}`}>${what}</span>`;
}

function LessonRow({ lesson }: { lesson: Lesson }) {
  return html`<li class="lesson" data-lesson=${lesson.id} data-state=${lesson.state} style="margin:0.4rem 0">
    <div>
      <strong>${lesson.kind}</strong> <code>${lesson.id}</code>${lesson.title ? html` “${lesson.title}”` : ""}${" · "}<span class="lesson-state">${lesson.state}</span> · <${VerdictBadge} v=${lesson.verdict} />
      <span class="muted small"> · revision ${lesson.rev} · used ${lesson.uses}× · by ${lesson.source}</span>
    </div>
    <div class="lesson-text text" style="white-space:pre-wrap">${lesson.content}</div>
    ${lesson.hypothesis ? html`<div class="muted small">hypothesis: ${lesson.hypothesis}</div>` : ""}
  </li>`;
}

function RevisionRow({ r }: { r: RevisionView }) {
  return html`<details class="item diff revision" data-rev=${r.rev}>
    <summary>${r.rev} #${r.seq} · ${r.time.slice(0, 19).replace("T", " ")} · ${r.author} · ${r.reason}${r.revert ? ` (reverts ${r.revert})` : ""} · <${VerdictBadge} v=${r.verdict} /></summary>
    <pre style="white-space:pre-wrap">${r.diff.split("\n").map((line) => html`<span class=${line.startsWith("+") ? "added" : line.startsWith("-") ? "removed" : ""} style=${line.startsWith("+") ? "color:var(--ok)" : line.startsWith("-") ? "color:var(--err)" : ""}>${`${line}\n`}</span>`)}</pre>
    ${r.verdict ? html`<div class="muted small">${r.verdict.summary}</div>` : ""}
  </details>`;
}

function ScopeSection({ scope }: { scope: ScopeView }) {
  if (scope.lessons.length === 0 && scope.revisions.length === 0 && !scope.error) return null;
  const more = scope.total - scope.revisions.length;
  return html`<section class="scope" data-scope=${scope.scope}>
    <h3 style="margin:0.6rem 0 0.2rem;font-size:0.95rem">${scope.scope} scope: ${scope.lessons.length} lesson${scope.lessons.length === 1 ? "" : "s"}</h3>
    ${scope.error ? html`<div class="item notice warn">${scope.error}</div>` : ""}
    <ul style="margin:0;padding-left:1.2rem">${scope.lessons.map((l) => html`<${LessonRow} key=${l.id} lesson=${l} />`)}</ul>
    ${scope.revisions.length ? html`<div class="muted small">revisions, newest first${more > 0 ? ` (${more} older: relm harness log --scope ${scope.scope})` : ""}:</div>` : ""}
    ${scope.revisions.map((r) => html`<${RevisionRow} key=${r.rev} r=${r} />`)}
  </section>`;
}

/** `changed`: the session's learning events seen, so the view is asked again when one arrives. */
export function LearningPanel({ id, changed }: { id: string; changed: number }) {
  const [view, setView] = useState<Learning | undefined>(undefined);
  const [error, setError] = useState("");
  const [tries, setTries] = useState(0);
  useEffect(() => {
    let gone = false;
    let again: ReturnType<typeof setTimeout> | undefined;
    // A failed ask (the server restarting, a log being written) is asked again a few seconds later.
    const failed = (why: string) => {
      if (gone) return;
      setError(why);
      if (tries < RETRIES) again = setTimeout(() => setTries((n) => n + 1), RETRY_MS);
    };
    fetch(`/api/sessions/${id}/learning`)
      .then(async (res) => {
        const body = (await res.json()) as Learning & { error?: string };
        if (gone) return;
        if (res.ok) {
          setView(body);
          setError("");
        } else failed(body.error ?? `the server answered ${res.status}`);
      })
      .catch((e: Error) => failed(e.message));
    return () => {
      gone = true;
      clearTimeout(again);
    };
  }, [id, changed, tries]);
  if (!view) return error ? html`<div class="item notice warn">learning: ${error}</div>` : null;
  const lessons = view.scopes.reduce((n, s) => n + s.lessons.length, 0);
  const probation = view.scopes.find((s) => s.scope === "probation")?.lessons.length ?? 0;
  const revisions = view.scopes.reduce((n, s) => n + s.total, 0);
  if (lessons === 0 && revisions === 0 && view.events.length === 0 && !view.learning) return null;
  const mode = view.learning === null ? "" : view.learning ? " · learning on" : " · learning off";
  return html`<details class="learning" style="background:var(--card);border:1px solid var(--line);border-radius:8px;padding:0.5rem 0.8rem;margin:0.8rem 0">
    <summary style="cursor:pointer;font-weight:600">learning: ${lessons} lessons, ${probation} on probation, ${revisions} revisions${mode}</summary>
    ${view.startedOnProbation.length ? html`<div class="muted small">started with ${view.startedOnProbation.length} on probation: ${view.startedOnProbation.join(", ")}</div>` : ""}
    ${view.events.length ? html`<div class="learning-events">${view.events.map((e) => html`<div class=${`item notice ${e.tone === "warn" ? "warn" : "info"}`} key=${e.n}>#${e.n} ${e.text}</div>`)}</div>` : ""}
    ${view.scopes.map((s) => html`<${ScopeSection} key=${s.scope} scope=${s} />`)}
  </details>`;
}
