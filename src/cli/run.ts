import { describeSpend } from "../agent/budget.js";
import type { AgentEvent } from "../agent/events.js";
import type { TurnOutcome } from "../agent/loop.js";
import { EXIT } from "./exit-codes.js";
import { ProgressRenderer } from "./render.js";
import { type CliIo, prepareSession, type SessionFlags, type SessionOverrides, titleOf } from "./setup.js";

export interface RunFlags extends SessionFlags {
  json?: boolean;
}

export interface RunIo extends CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  color: boolean;
}

export function exitCodeFor(outcome: TurnOutcome): number {
  switch (outcome.status) {
    case "done":
      return EXIT.done;
    case "budget":
      return EXIT.budget;
    case "interrupted":
      return EXIT.interrupted;
    default:
      return EXIT.error;
  }
}

/**
 * `relm run`: one task, answered on stdout, progress on stderr (or every event as JSON on stdout).
 * The first Ctrl-C interrupts the work and ends the run with 130; a second one exits at once.
 */
export async function runOnce(
  task: string,
  flags: RunFlags,
  io: RunIo,
  overrides: SessionOverrides = {},
): Promise<number> {
  const renderer = new ProgressRenderer(io.stderr, { color: io.color, streamText: false });
  const sink = flags.json
    ? (event: AgentEvent) => io.stdout.write(`${JSON.stringify(event)}\n`)
    : (event: AgentEvent) => renderer.handle(event);
  const { session } = await prepareSession(titleOf(task), flags, io, sink, overrides);

  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts === 1) {
      io.stderr.write("\ninterrupting… (Ctrl-C again to quit now)\n");
      session.interrupt();
    } else {
      process.exit(EXIT.interrupted);
    }
  };
  process.on("SIGINT", onSigint);
  let outcome: TurnOutcome;
  try {
    outcome = await session.run(task);
  } finally {
    process.off("SIGINT", onSigint);
    await session.close();
  }

  if (!flags.json) {
    if (outcome.status === "done") {
      io.stdout.write(outcome.text.endsWith("\n") ? outcome.text : `${outcome.text}\n`);
    } else if (outcome.status === "budget") {
      io.stderr.write(`relm: ${outcome.stop.message}; spent ${describeSpend(outcome.stop.spent)}\n`);
    } else if (outcome.status === "error") {
      io.stderr.write(`relm: ${outcome.message}\n`);
    }
    if (outcome.status !== "done")
      io.stderr.write(`session ${session.id}: relm export ${session.id} --format md\n`);
  }
  return exitCodeFor(outcome);
}
