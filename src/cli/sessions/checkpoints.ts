// `relm checkpoints ID` and `relm undo ID [--to TURN]`: the file checkpoints a session took before each turn
// that ran code, and putting its working directory back to one of them.

import { join } from "node:path";
import type { Command } from "commander";
import { relmHomeFrom } from "../../config/config.js";
import { UsageError, UserError } from "../../config/errors.js";
import {
  JOURNAL_FILE,
  readHeaderAndTail,
  resolveSessionId,
  sessionDir,
  sessionsDir,
} from "../../session/index.js";
import type { Checkpoint, Checkpoints, RestoreResult } from "../../workspace/index.js";
import { EXIT } from "../exit-codes.js";
import type { RunIo } from "../run.js";
import { table } from "../table.js";

type Io = Pick<RunIo, "stdout" | "env">;

export function registerCheckpointCommands(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command("checkpoints")
    .description("list a session's file checkpoints (taken before each turn that ran code)")
    .argument("<id>", "session id or a unique prefix of it")
    .option("--json", "print one JSON object per checkpoint")
    .action(async (id: string, flags: { json?: boolean }) =>
      setExit(await checkpointsCommand(id, flags, io)),
    );
  program
    .command("undo")
    .description(
      "put a session's files back as they were before a turn (default: its last checkpointed turn)",
    )
    .argument("<id>", "session id or a unique prefix of it")
    .option("--to <turn>", "restore the files to before this turn (see `relm checkpoints ID`)")
    .action(async (id: string, flags: { to?: string }) => setExit(await undoCommand(id, flags, io)));
}

/** The session's checkpoints; a user error (exit 1) when they cannot be read here. */
async function openFor(idOrPrefix: string, io: Io): Promise<{ cp: Checkpoints; id: string }> {
  const home = relmHomeFrom(io.env);
  const id = resolveSessionId(sessionsDir(home), idOrPrefix);
  const { header } = readHeaderAndTail(join(sessionDir(home, id), JOURNAL_FILE), 1);
  const { Checkpoints } = await import("../../workspace/index.js");
  const cp = await Checkpoints.open({ home, cwd: header.cwd, sessionId: id, env: io.env });
  if ("unavailable" in cp) throw new UserError(cp.unavailable);
  return { cp, id };
}

function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

function checkpointTable(list: Checkpoint[]): string {
  return table([
    ["turn", "time", "files changed", "note"],
    ...list.map((c) => [
      String(c.turn),
      localTime(c.time),
      String(c.filesChanged),
      [clip(c.label ?? ""), c.skipped.length > 0 ? `${c.skipped.length} over the size limit not saved` : ""]
        .filter(Boolean)
        .join("; "),
    ]),
  ]);
}

// A CheckpointError (its message meant for the user) is a UserError: reported as one `relm: …` line.
async function checkpointsCommand(idOrPrefix: string, flags: { json?: boolean }, io: Io): Promise<number> {
  const { cp, id } = await openFor(idOrPrefix, io);
  const list = await cp.list();
  if (flags.json) {
    for (const c of list) io.stdout.write(`${JSON.stringify(c)}\n`);
    return EXIT.done;
  }
  if (list.length === 0) {
    io.stdout.write(`session ${id} has no checkpoints yet (one is taken before each turn that runs code)\n`);
    return EXIT.done;
  }
  io.stdout.write(`checkpoints of session ${id} in ${cp.cwd}\n`);
  io.stdout.write("(files changed: since the previous checkpoint; each is the state before its turn)\n\n");
  io.stdout.write(
    `${checkpointTable(list)}\n\nrelm undo ${id} --to TURN  puts the files back as they were before TURN\n`,
  );
  return EXIT.done;
}

function report(result: RestoreResult, cwd: string): string {
  const { checkpoint: c } = result;
  const lines: string[] = [];
  const where = `${cwd} (checkpoint ${c.commit.slice(0, 10)}, ${localTime(c.time)})`;
  if (result.changed.length + result.removed.length === 0) {
    lines.push(`nothing to restore: the files in ${cwd} already match the checkpoint before turn ${c.turn}`);
  } else {
    lines.push(`restored the files to before turn ${c.turn} in ${where}:`);
    for (const p of result.changed) lines.push(`  restored  ${p}`);
    for (const p of result.removed) lines.push(`  removed   ${p}`);
  }
  for (const p of result.keptIgnored) lines.push(`  kept      ${p} (ignored, so never checkpointed)`);
  for (const s of result.notRestored) {
    lines.push(
      `  left as is ${s.path} (${size(s.bytes)} then: over the size limit, so not in the checkpoint)`,
    );
  }
  if (result.changed.length + result.removed.length > 0) {
    lines.push(
      `the state before this undo is saved as commit ${result.backup.slice(0, 10)} in the checkpoint repository`,
    );
  }
  return `${lines.join("\n")}\n`;
}

async function undoCommand(idOrPrefix: string, flags: { to?: string }, io: Io): Promise<number> {
  let turn: number | undefined;
  if (flags.to !== undefined) {
    turn = Number(flags.to);
    if (!/^\d+$/.test(flags.to.trim()) || !Number.isSafeInteger(turn)) {
      throw new UsageError(
        `--to needs a turn number (see \`relm checkpoints ${idOrPrefix}\`), got "${flags.to}"`,
      );
    }
  }
  const { cp, id } = await openFor(idOrPrefix, io);
  if (turn === undefined) {
    const last = (await cp.list()).at(-1);
    if (!last) throw new UserError(`session ${id} has no checkpoints: nothing to undo`);
    turn = last.turn;
  }
  io.stdout.write(report(await cp.restore(turn), cp.cwd));
  return EXIT.done;
}
