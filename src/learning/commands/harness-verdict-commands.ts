import { type Command, Option } from "commander";
import type { HarnessIo } from "./harness-cli.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `relm harness stats | promote | reject | pin | verify`: definitions only; the work is loaded when a
 * command runs.
 */
export function registerVerdictCommands(
  harness: Command,
  scoped: (cmd: Command, what: string) => Command,
  io: HarnessIo,
  setExit: (code: number) => void,
): void {
  scoped(
    harness
      .command("stats")
      .description(
        "per entry: uses, how the work went while it was in force, and the verdict on the edit that made it (regressions are reverted)",
      )
      .option("--json", "one JSON object per entry, then one per verdict")
      .option("--dry-run", "judge without recording verdicts or reverting anything"),
    "only this scope",
  ).action(async (flags) => {
    const { statsCommand } = await import("./harness-verdicts.js");
    setExit(await statsCommand(flags, io));
  });

  harness
    .command("promote")
    .description(
      "copy a lesson to the project scope: one on probation (a person vouches for it), or a session's with --session and the evidence that it helped",
    )
    .argument("<entry>", "entry id or a unique prefix of it: on probation, or in the session's scope")
    .option(
      "--session <id>",
      "promote this session's entry (any unique prefix of its id); its verdict must say it helped",
    )
    .addOption(new Option("--to <scope>", "where it goes (default project)").choices(["project", "user"]))
    .action(async (entry: string, flags) => {
      const { promoteCommand } = await import("./harness-verdicts.js");
      setExit(await promoteCommand(entry, flags, io));
    });

  harness
    .command("reject")
    .description(
      "take a lesson off probation: new sessions no longer start with it (one revision; revert brings it back)",
    )
    .argument("<entry>", "entry id on probation, or a unique prefix of it")
    .option("--reason <text>", "why, for the log")
    .action(async (entry: string, flags) => {
      const { rejectCommand } = await import("./harness-probation.js");
      setExit(await rejectCommand(entry, flags, io));
    });

  harness
    .command("pin")
    .description(
      "keep a lesson on probation as it is: its verdicts are still recorded but no longer promote, revert or retire it",
    )
    .argument("<entry>", "entry id on probation, or a unique prefix of it")
    .option("--off", "release it: verdicts act on it again")
    .action(async (entry: string, flags) => {
      const { pinCommand } = await import("./harness-probation.js");
      setExit(await pinCommand(entry, flags, io));
    });

  scoped(
    harness
      .command("verify")
      .description(
        "replay the task(s) an edit was learnt from, without and with it, in scratch copies of the files, and compare",
      )
      .argument("<rev>", "revision id or a unique prefix of it")
      .option(
        "--from <session>",
        "replay this session's task(s) (default: the session the edit was learnt from)",
      )
      .option(
        "--gate <command>",
        "judge the replays by this gate (repeatable; default: the session's gates)",
        collect,
      )
      .option("--model <name>", "model to replay on (default: the session's)")
      .option("--max-turns <n>", "model calls per replay (default 30)")
      .option("--max-tokens <n>", "tokens per replay")
      .option("--max-cost <usd>", "cost per replay (needs the model's price)")
      .option("--max-time <duration>", "time per replay (default 15m)")
      .option("--keep", "keep the scratch copies and their sessions (the path is printed)")
      .option("--json", "print the result as one JSON object"),
    "the scope to look in (default: every scope)",
  ).action(async (rev: string, flags) => {
    const { verifyCommand } = await import("./harness-verify.js");
    setExit(await verifyCommand(rev, flags, io));
  });
}
