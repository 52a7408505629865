import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { JournalBody } from "../session/types.js";
import { Checkpoints, type RestoreResult } from "../workspace/index.js";

const run = promisify(execFile);

/**
 * A session's file checkpoints: the working tree is committed to a shadow repository before each turn
 * that runs code, so `/undo` and `relm undo` can put the files back. Opened in the background when the
 * session starts (and the first, slow, full scan done then), so a turn rarely waits for it. Without git,
 * or in a directory it will not track ($HOME, /), the session goes on with one warning.
 */
export class SessionCheckpoints {
  private readonly ready: Promise<Checkpoints | undefined>;
  private warned = false;
  private lastTurn: number | undefined;

  constructor(
    home: string,
    cwd: string,
    sessionId: string,
    private readonly record: (body: JournalBody) => unknown,
  ) {
    this.ready = Checkpoints.open({ home, cwd, sessionId })
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

  /** Snapshot before the cells of `turn` run (once per turn). */
  async beforeCells(turn: number): Promise<void> {
    if (this.lastTurn === turn) return;
    this.lastTurn = turn;
    const checkpoints = await this.ready;
    if (!checkpoints) return;
    const started = Date.now();
    try {
      const c = await checkpoints.snapshot(turn);
      this.record({
        type: "checkpoint",
        turn,
        commit: c.commit,
        filesChanged: c.filesChanged,
        durationMs: Date.now() - started,
      });
    } catch (error) {
      this.record({
        type: "checkpoint",
        turn,
        warning: (error as Error).message,
        durationMs: Date.now() - started,
      });
    }
  }

  /** The workspace's state as a hash (no commit), for "nothing changed" checks; null when unknown. */
  async fingerprint(): Promise<string | null> {
    const checkpoints = await this.ready;
    if (!checkpoints) return null;
    return checkpoints.fingerprint().catch(() => null);
  }

  /** Files that differ between the first and the latest checkpoint of this session (for compaction). */
  async filesTouched(): Promise<string[]> {
    const checkpoints = await this.ready;
    if (!checkpoints) return [];
    const list = await checkpoints.list().catch(() => []);
    const first = list[0]?.commit;
    const last = list.at(-1)?.commit;
    if (!first || !last || first === last) return [];
    try {
      const { stdout } = await run(
        "git",
        ["--git-dir", checkpoints.gitDir, "diff", "--name-only", first, last],
        {
          maxBuffer: 1 << 22,
        },
      );
      return stdout.split("\n").filter(Boolean).slice(0, 200);
    } catch {
      return [];
    }
  }

  /** Restores the files to before `turn` (default: the last turn that has a checkpoint). */
  async undo(turn?: number): Promise<RestoreResult | { error: string }> {
    const checkpoints = await this.ready;
    if (!checkpoints) return { error: "file checkpoints are not available in this session" };
    const list = await checkpoints.list();
    const target = turn ?? list.at(-1)?.turn;
    if (target === undefined)
      return { error: "no checkpoint yet: one is taken before each turn that runs code" };
    return checkpoints.restore(target);
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
