// What relm web sends for a session's learning view (src/webui/learning-view.ts builds it, the page's
// learning panel draws it): types only, so that the browser's code can name them.

export interface Judged {
  verdict: string;
  final: boolean;
  summary: string;
  reverted?: string;
  promoted?: string;
}

export interface LessonView {
  id: string;
  kind: string;
  title: string;
  content: string;
  source: string;
  rev: string;
  uses: number;
  hypothesis?: string;
  /** in force, on probation, pinned (on probation: verdicts do not act), started with (on probation when the session began). */
  state: string;
  verdict?: Judged;
}

export interface RevisionView {
  rev: string;
  seq: number;
  time: string;
  author: string;
  reason: string;
  revert?: string;
  /** The edits as `relm harness show` prints them: + added, - removed lines. */
  diff: string;
  verdict?: Judged;
}

export interface ScopeView {
  scope: string;
  lessons: LessonView[];
  /** Newest first. */
  revisions: RevisionView[];
  /** All revisions of the scope (more than those sent when over MAX_REVISIONS). */
  total: number;
  /** Why the scope's log could not be read (a newer relm wrote it): the rest of the view stands. */
  error?: string;
}

export interface LearningView {
  /** Learning on the fly is on for the session (its last learn_mode), else null when never set. */
  learning: boolean | null;
  /** The lessons on probation it started with (its harness_probation events). */
  startedOnProbation: string[];
  scopes: ScopeView[];
  /** What learning did in this session, a line each, as the terminal prints it. */
  events: { n: number; t: string; text: string; tone: string }[];
}
