import { execFile } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { makeDirs } from "../../config/dirs.js";
import type { JournalBody, JournalBodyOf, JournalEvent } from "../../session/types.js";
import {
  type Checkpoint,
  Checkpoints,
  type CheckpointsOptions,
  type RestoreResult,
} from "../../workspace/index.js";

/**
 * One checkpoint as a front end lists it; `restored`: by an undo since the last turn that ran code (the
 * next plain undo goes further back).
 */
export type CheckpointSummary = Pick<Checkpoint, "turn" | "time" | "filesChanged"> & { restored: boolean };

/** The session's file changes so far (`/diff`). */
export interface SessionDiff {
  /** The first checkpoint's turn and time: what "the start" is. */
  fromTurn: number;
  since: string;
  files: { path: string; added: number; removed: number }[];
  /** `git diff` of all of it. */
  patch: string;
}

/** What an undo put back, as its journal event says it. */
export type Undone = Omit<JournalBodyOf<"undo">, "type">;

const run = promisify(execFile);

/** `git` on a session's shadow repository; its output. */
async function git(checkpoints: Checkpoints, args: string[], maxBuffer: number): Promise<string> {
  const done = await run("git", ["--git-dir", checkpoints.gitDir, ...args], { maxBuffer, encoding: "utf8" });
  return done.stdout;
}

const UNAVAILABLE = "file checkpoints are not available in this session";

/**
 * A session's file checkpoints: the working tree is committed to a shadow repository before each turn
 * that runs code, so `/undo` and `relm undo` can put the files back. Opened in the background when the
 * session starts (and the first, slow, full scan done then), so a turn rarely waits for it. Without git,
 * or in a directory it will not track ($HOME, /), the session goes on with one warning.
 */
export class SessionCheckpoints {
  private readonly ready: Promise<Checkpoints | undefined>;
  private warned = false;
  /** The last snapshot warning journaled: the same one again (a refusal each turn) is not repeated. */
  private lastWarning: string | undefined;
  private lastTurn: number | undefined;
  /**
   * Turns whose checkpoints were restored since the last turn that ran code, in order: a plain undo
   * steps back from the last of them, so it never restores the same checkpoint twice.
   */
  private restoredTurns: number[];
  /** The first checkpoint while it is taken in the background (the first cell runs meanwhile). */
  private first: Promise<void> | undefined;
  /** The gate file the first cell's writes wait for, while `first` is pending. */
  private gate: string | undefined;
  private startedFirst = false;

  constructor(
    home: string,
    private readonly cwd: string,
    sessionId: string,
    private readonly record: (body: JournalBody) => unknown,
    restoredTurns: number[] = [],
    /** Limits and the like for the checkpoints (tests). */
    options: Partial<CheckpointsOptions> = {},
    /**
     * A directory the kernel can read (the session's outputs): with it, the first checkpoint is taken
     * while the first cell runs, and only that cell's writes wait for it (writeGate()).
     */
    private readonly gateDir?: string,
  ) {
    this.restoredTurns = [...restoredTurns];
    // Watched: a snapshot then costs what changed since the last one, not a look at every file.
    this.ready = Checkpoints.open({ ...options, home, cwd, sessionId, watch: true })
      .then((opened) => {
        if ("unavailable" in opened) {
          this.warn(opened.unavailable);
          return undefined;
        }
        // Warms git's index, so the first real snapshot is incremental.
        void opened.fingerprint().catch(() => undefined);
        return opened;
      })
      .catch((error: Error) => {
        this.warn(error.message);
        return undefined;
      });
  }

  /**
   * Snapshot before the cells of `turn` run (once per turn). The session's first is not waited for: on a
   * large repository it is a scan of every file (seconds), so it runs while the first cell does, and
   * that cell's changes to the files are held until it is taken (writeGate(), python/relm/writegate.py).
   */
  async beforeCells(turn: number, gated: () => Promise<boolean> = async () => true): Promise<void> {
    if (this.lastTurn === turn) return;
    await this.first; // a later checkpoint is the first one's child
    this.lastTurn = turn;
    // New work: the next undo starts again from this turn's checkpoint.
    this.restoredTurns = [];
    // `gated` false: the kernel does not run on these files (a container, ssh), the gate cannot reach it.
    // Asked only for the first checkpoint: later turns do not wait on the kernel's placement.
    if (!this.startedFirst && this.gateDir && (await gated())) {
      this.startedFirst = true;
      const gate = join(this.gateDir, ".relm-checkpoint-pending");
      try {
        makeDirs(this.gateDir);
        writeFileSync(gate, "");
      } catch {
        return this.take(turn); // no gate: the cell waits for the checkpoint as any other
      }
      this.gate = gate;
      this.first = this.take(turn).finally(() => {
        rmSync(gate, { force: true });
        this.gate = undefined;
        this.first = undefined;
      });
      return;
    }
    this.startedFirst = true;
    return this.take(turn);
  }

  /** The gate the running cell's first changes to the files wait for, while the first checkpoint is taken. */
  writeGate(): { file: string; tree: string } | undefined {
    return this.gate ? { file: this.gate, tree: this.cwd } : undefined;
  }

  private async take(turn: number): Promise<void> {
    const checkpoints = await this.ready;
    if (!checkpoints) return;
    const started = Date.now();
    try {
      const c = await checkpoints.snapshot(turn);
      this.lastWarning = undefined;
      this.record({
        type: "checkpoint",
        turn,
        commit: c.commit,
        filesChanged: c.filesChanged,
        durationMs: Date.now() - started,
      });
    } catch (error) {
      const warning = (error as Error).message;
      if (warning === this.lastWarning) return; // said once; the checkpoints say it again if it changes
      this.lastWarning = warning;
      this.record({ type: "checkpoint", turn, warning, durationMs: Date.now() - started });
    }
  }

  /** Stops watching the files (the session ends), once the first checkpoint is written. */
  async close(): Promise<void> {
    (await this.opened())?.close();
  }

  /** The checkpoints once the first one is written; undefined when they are off. */
  private async opened(): Promise<Checkpoints | undefined> {
    await this.first;
    return this.ready;
  }

  /** The workspace's state as a hash (no commit), for "nothing changed" checks; null when unknown. */
  async fingerprint(): Promise<string | null> {
    const checkpoints = await this.opened();
    return checkpoints ? checkpoints.fingerprint().catch(() => null) : null;
  }

  /** Files that differ between the first and the latest checkpoint of this session (for compaction). */
  async filesTouched(): Promise<string[]> {
    const checkpoints = await this.opened();
    if (!checkpoints) return [];
    const list = await checkpoints.list().catch(() => []);
    const first = list[0]?.commit;
    const last = list.at(-1)?.commit;
    if (!first || !last || first === last) return [];
    const names = await git(checkpoints, ["diff", "--name-only", first, last], 1 << 22).catch(() => "");
    return names.split("\n").filter(Boolean).slice(0, 200);
  }

  /**
   * The files as they are now against this session's first checkpoint (before its first turn that ran
   * code): the patch and, per file, lines added and removed (`/diff`). `none`: nothing to compare yet.
   */
  async sinceStart(): Promise<SessionDiff | { error: string } | { none: string }> {
    const checkpoints = await this.ready;
    if (!checkpoints) return { error: UNAVAILABLE };
    const first = (await checkpoints.list())[0];
    if (!first) return { none: "no file changes yet: checkpoints are taken before each turn that runs code" };
    // The work tree as it is now, as a tree in the shadow repository (no checkpoint is recorded).
    const now = await checkpoints.fingerprint();
    // --text: the shadow repository marks every file -diff (no filters of the work tree's); a file
    // that is binary (a NUL, as git decides) is told in one line instead.
    const diff = ["-c", "core.quotePath=false", "diff", "--text", "--no-color", "--no-renames"];
    const text = await git(checkpoints, [...diff, first.commit, now], 1 << 28);
    const sections = text.split(/^(?=diff --git )/m).filter((part) => part.startsWith("diff --git "));
    const files = sections.map(describeSection);
    const patch = sections
      .map((part, k) => (part.includes("\0") ? binaryLine(part, files[k]?.path) : part))
      .join("");
    return { fromTurn: first.turn, since: first.time, files, patch };
  }

  /** This session's checkpoints, newest first. */
  async list(): Promise<CheckpointSummary[] | { error: string }> {
    const checkpoints = await this.opened();
    if (!checkpoints) return { error: UNAVAILABLE };
    const list = await checkpoints.list();
    return list.reverse().map((c) => ({
      turn: c.turn,
      time: c.time,
      filesChanged: c.filesChanged,
      restored: this.restoredTurns.includes(c.turn),
    }));
  }

  /**
   * Restores the files to before `turn`. Without a turn, steps back one code-running turn: the last
   * checkpoint first, then each time the one before the checkpoint restored last. Journaled as `undo`.
   */
  async undo(turn?: number): Promise<Undone | { error: string }> {
    const checkpoints = await this.opened();
    if (!checkpoints) return { error: UNAVAILABLE };
    const list = await checkpoints.list();
    let target = turn;
    if (target === undefined) {
      const last = this.restoredTurns.at(-1);
      target = last === undefined ? list.at(-1)?.turn : list.findLast((c) => c.turn < last)?.turn;
      if (target === undefined && last !== undefined) {
        return {
          error: `nothing older to undo: the files are already as before turn ${last}, this session's first checkpoint`,
        };
      }
    }
    if (target === undefined)
      return { error: "no checkpoint yet: one is taken before each turn that runs code" };
    let result: RestoreResult;
    try {
      result = await checkpoints.restore(target);
    } catch (error) {
      if ((error as Error).name === "CheckpointError") return { error: (error as Error).message };
      throw error;
    }
    const { checkpoint, changed, removed, backup } = result;
    const undone = { turn: checkpoint.turn, changed, removed, backup };
    this.restoredTurns.push(undone.turn);
    this.record({ type: "undo", ...undone });
    return undone;
  }

  private warn(reason: string): void {
    if (this.warned) return;
    this.warned = true;
    this.record({
      type: "checkpoint",
      turn: 0,
      warning: `file checkpoints are off: ${reason}`,
      durationMs: 0,
    });
  }
}

/** A file's section of a patch: its path and the lines it adds and removes. */
function describeSection(part: string): { path: string; added: number; removed: number } {
  const lines = part.split("\n");
  const path = /^diff --git a\/.* b\/(.*)$/.exec(lines[0] ?? "")?.[1] ?? "?";
  if (part.includes("\0")) return { path, added: 0, removed: 0 };
  let added = 0;
  let removed = 0;
  // Counted from the first hunk on: the `--- a/…` and `+++ b/…` lines before it are headers.
  const hunks = lines.findIndex((line) => line.startsWith("@@"));
  for (const line of hunks < 0 ? [] : lines.slice(hunks)) {
    if (line.startsWith("+")) added++;
    else if (line.startsWith("-")) removed++;
  }
  return { path, added, removed };
}

/** A binary file's section, as git itself says it. */
function binaryLine(part: string, path = "?"): string {
  return `${part.split("\n")[0]}\nBinary files a/${path} and b/${path} differ\n`;
}

/** The undo steps taken since the last checkpoint, from a journal (a resumed session keeps stepping). */
export function restoredSinceLastCheckpoint(events: readonly JournalEvent[]): number[] {
  const turns: number[] = [];
  for (const e of events) {
    if (e.type === "checkpoint" && e.turn > 0) turns.splice(0);
    else if (e.type === "undo") turns.push(e.turn);
  }
  return turns;
}
