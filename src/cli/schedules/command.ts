import type { Command } from "commander";
import type { RunIo } from "../run.js";

type SetExit = (code: number) => void;

/** `relm schedule add|list|cancel|pause|resume` and the hidden per-user waker; the work is loaded only when used. */
export function registerScheduleCommands(program: Command, io: RunIo, setExit: SetExit): void {
  const actions = () => import("./actions.js");
  const schedule = program
    .command("schedule")
    .description("re-enter sessions later: every N, at a time, or on a cron");
  schedule
    .command("add")
    .description("add a job that sends PROMPT to session ID at each tick")
    .argument("<id>", "session id or a unique prefix")
    .argument("<prompt...>", "what the session is told at each tick")
    .option("--every <duration>", "e.g. 10m, 2h, 30s")
    .option("--at <iso-time>", "once, e.g. 2026-12-24T09:00:00Z")
    .option("--cron <expr>", 'a cron expression, e.g. "0 9 * * 1-5"')
    .action(async (id: string, words: string[], flags: { every?: string; at?: string; cron?: string }) =>
      setExit(await (await actions()).addAction(io, id, words.join(" "), flags)),
    );
  schedule
    .command("list")
    .description("jobs with ticks still to come, and which are paused")
    .argument("[id]", "only this session's jobs")
    .option("--json", "one JSON object per job")
    .action(async (id: string | undefined, flags: { json?: boolean }) =>
      setExit(await (await actions()).listAction(io, id, flags)),
    );
  schedule
    .command("cancel")
    .description("end a job")
    .argument("<job>", "the job id (relm schedule list)")
    .action(async (job: string) => setExit(await (await actions()).cancelAction(io, job)));
  schedule
    .command("pause")
    .description("pause jobs: kept, but no tick is delivered and no session woken until resumed")
    .argument("[target]", "a job id, or a session id or prefix (default: every job)")
    .action(async (target: string | undefined) => setExit(await (await actions()).pauseAction(io, target)));
  schedule
    .command("resume")
    .description("resume paused jobs (relm shutdown pauses them all); ticks missed meanwhile are skipped")
    .argument("[target]", "a job id, or a session id or prefix (default: every paused job)")
    .action(async (target: string | undefined) => setExit(await (await actions()).resumeAction(io, target)));
  program
    .command("__waker", { hidden: true })
    .action(async () => setExit(await (await actions()).wakerAction(io)));
}
