// The terminal UI's end-to-end tests: the real `relm` in a pseudo-terminal (test/support/pty.ts) against
// the scripted model (test/support/scripted.ts). The UI starts detached session hosts that outlive it,
// so after each test every host of the rig is shut down before the rig checks that no kernel is left.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach } from "vitest";
import { kernelsLeft, runRelm } from "./cli.js";
import type { JournalLine } from "./journal.js";
import { type Pty, type PtyOptions, usePtys } from "./pty.js";
import { type Rig, useRigs } from "./scripted.js";
import { until } from "./wait.js";

export interface TuiKit {
  startRig: ReturnType<typeof useRigs>;
  /** `relm ARGS` in a pty, in the rig's directory with its environment. */
  open(rig: Rig, args?: string[], options?: Omit<PtyOptions, "args">): Pty;
}

export function useTui(): TuiKit {
  const startRig = useRigs();
  const rigs: Rig[] = [];
  afterEach(async () => {
    for (const rig of rigs.splice(0)) {
      await runRelm(["shutdown"], { env: rig.env, cwd: rig.cwd });
      const left = await kernelsLeft(rig.home);
      if (left.length > 0) throw new Error(`relm processes left after shutdown:\n${left.join("\n")}`);
    }
  });
  const startPty = usePtys();
  return {
    startRig: async (...args) => {
      const rig = await startRig(...args);
      rigs.push(rig);
      return rig;
    },
    open: (rig, args = [], options = {}) => startPty({ cwd: rig.cwd, env: rig.env, ...options, args }),
  };
}

/** Session ids under the rig's home, oldest first. */
export function sessionIds(home: string): string[] {
  try {
    return readdirSync(join(home, "sessions")).sort();
  } catch {
    return [];
  }
}

/** A session's journal lines. */
export function journalOf(home: string, id: string): JournalLine[] {
  return readFileSync(join(home, "sessions", id, "journal.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as JournalLine);
}

/** Waits until the only session's journal has an event matching `test`; returns the journal. */
export async function untilJournal(
  home: string,
  test: (lines: JournalLine[]) => boolean,
  timeoutMs = 30_000,
): Promise<JournalLine[]> {
  return until(() => {
    const [id] = sessionIds(home);
    if (!id) return undefined;
    try {
      const lines = journalOf(home, id);
      return test(lines) ? lines : undefined;
    } catch {
      return undefined;
    }
  }, timeoutMs);
}
