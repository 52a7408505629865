import { type Command, Option } from "commander";
import { collect } from "../../cli/command-options.js";
import type { HarnessIo } from "./harness-cli.js";

/** Every scope can be read and reverted; probation is written by relm only (and by promote, reject, pin). */
const SCOPES = ["session", "project", "probation", "user"];
const WRITABLE = ["session", "project", "user"];

function scoped(cmd: Command, what: string, choices: string[] = SCOPES): Command {
  return cmd
    .addOption(new Option("--scope <scope>", what).choices(choices))
    .option("--session <id>", "the session whose scope to use (any unique prefix of its id)");
}

/**
 * `relm harness …` (entries, revisions, skills; and stats, promote, reject, pin, verify for verdicts) and
 * `relm refine ID`: definitions only; the work is loaded when a command runs.
 */
export function registerHarnessCommands(
  program: Command,
  io: HarnessIo,
  setExit: (code: number) => void,
): void {
  const actions = () => import("./harness-actions.js");
  const verdicts = () => import("./harness-verdicts.js");
  const probation = () => import("./harness-probation.js");
  // Each command's module is loaded when it runs; what it returns is the exit code.
  const run = async (exit: Promise<number>) => setExit(await exit);

  program
    .command("refine")
    .description("review a session's work since its last refinement and propose harness edits (a diff)")
    .argument("<id>", "session id or a unique prefix of it")
    .option("--dry-run", "show the proposed edits and write nothing")
    .option("--apply", "apply the checked edits without asking (needed when not in a terminal)")
    .addOption(new Option("--scope <scope>", "where the edits go (default session)").choices(WRITABLE))
    .addOption(
      new Option(
        "--provider <name>",
        "openai, openai-responses, anthropic or a preset: openrouter, gemini, groq, deepseek, mistral, xai, together, fireworks, cerebras, azure, lmstudio, vllm, ollama",
      ),
    )
    .option("--base-url <url>", "endpoint of the refine model")
    .option("--model <name>", "refine model (default: refineModel in config.json, else the session's model)")
    .option("--max-tokens <n>", "the refine call's input+output tokens at most (not called if it cannot fit)")
    .option("--max-time <duration>", "abort the refine call after this long, e.g. 2m")
    .option("--max-cost <usd>", "the refine call's cost at most, in US dollars")
    .action(async (id: string, flags) =>
      run((await import("./refine-command.js")).refineCommand(id, flags, io)),
    );

  const harness = program
    .command("harness")
    .description("the continual harness: memories, prompts, skills and sub-agent specs, with history");

  scoped(
    harness
      .command("add")
      .description("add an entry by hand (one revision)")
      .argument("<kind>", "prompt, memory, skill or agent")
      .argument("<content>", "the text (for a skill: its description; for an agent: its instructions)")
      .option("--title <title>", "a short title; the name of a skill or agent")
      .option("--reason <text>", "why, for the log")
      .option(
        "--hypothesis <text>",
        "what the entry should change in the work that follows (judged by `relm harness stats`)",
      ),
    "where the entry goes (default project)",
    WRITABLE,
  ).action(async (kind: string, content: string, flags) =>
    run((await actions()).addCommand(kind, content, flags, io)),
  );

  scoped(
    harness
      .command("rm")
      .description("remove an entry (one revision; `relm harness revert` brings it back)")
      .argument("<entry>", "entry id or a unique prefix of it")
      .option("--reason <text>", "why, for the log"),
    "the scope to look in (default: every scope)",
  ).action(async (entry: string, flags) => run((await actions()).rmCommand(entry, flags, io)));

  scoped(
    harness
      .command("list")
      .description("the current entries with their scope and use count")
      .option("--json", "one JSON object per entry"),
    "only this scope",
  ).action(async (flags) => run((await actions()).listCommand(flags, io)));

  scoped(
    harness
      .command("log")
      .description("revisions, newest last; --stale lists entries never used")
      .option("--stale", "list memories, skills and specs that were never used")
      .option("--json", "print the revisions as JSON lines"),
    "only this scope",
  ).action(async (flags) => run((await actions()).logCommand(flags, io)));

  for (const [name, description] of [
    ["show", "a revision in full: author, reason, evidence, every edit's before and after"],
    ["diff", "what a revision changed, as a diff"],
  ] as const) {
    scoped(
      harness
        .command(name)
        .description(description)
        .argument("<rev>", "revision id, a unique prefix of it, or its #N in `relm harness log`"),
      "the scope to look in (default: every scope)",
    ).action(async (rev: string, flags) => run((await actions()).showCommand(name, rev, flags, io)));
  }

  scoped(
    harness
      .command("revert")
      .description("append the inverse of a revision; refused if a later revision changed the same entries")
      .argument("<rev>", "revision id, a unique prefix of it, or its #N in `relm harness log`")
      .option("--force", "revert anyway: the entries go back to what they were before REV"),
    "the scope to look in (default: every scope)",
  ).action(async (rev: string, flags) => run((await actions()).revertCommand(rev, flags, io)));

  scoped(
    harness
      .command("skills")
      .description(
        "the skills in use; --suggest proposes skills from repeated chains of cells in this project's sessions",
      )
      .option(
        "--suggest",
        "mine this project's sessions for repeated work and show skill candidates (writes nothing)",
      )
      .option(
        "--apply <name>",
        "have the refine model write candidate NAME's docstring, smoke-test it in a scratch copy of the project; apply it only if it passes",
      )
      .option("--json", "print the candidates as one JSON object"),
    "where --apply puts the skill (default project)",
    WRITABLE,
  ).action(async (flags) => run((await import("./harness-skills.js")).skillsCommand(flags, io)));

  scoped(
    harness
      .command("export")
      .description("write entries as JSON (all of the scope's, or the ones named) for `relm harness import`")
      .argument("[entries...]", "entry ids or unique prefixes (default: every entry of the scope)")
      .option("-o, --output <file>", "write to a file instead of stdout"),
    "the scope to export (default session with --session, else project)",
  ).action(async (entries: string[], flags) => run((await actions()).exportCommand(entries, flags, io)));

  scoped(
    harness
      .command("import")
      .description("add exported entries to a scope, e.g. promote a session's lesson to the project")
      .argument("<file>", "a file written by `relm harness export`, or - for stdin"),
    "where the entries go (default project)",
    WRITABLE,
  ).action(async (file: string, flags) => run((await actions()).importCommand(file, flags, io)));

  scoped(
    harness
      .command("stats")
      .description(
        "per entry: uses, how the work went while it was in force, and the verdict on the edit that made it (regressions are reverted)",
      )
      .option("--json", "one JSON object per entry, then one per verdict")
      .option("--dry-run", "judge without recording verdicts or reverting anything"),
    "only this scope",
  ).action(async (flags) => run((await verdicts()).statsCommand(flags, io)));

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
    .action(async (entry: string, flags) => run((await verdicts()).promoteCommand(entry, flags, io)));

  harness
    .command("reject")
    .description(
      "take a lesson off probation: new sessions no longer start with it (one revision; revert brings it back)",
    )
    .argument("<entry>", "entry id on probation, or a unique prefix of it")
    .option("--reason <text>", "why, for the log")
    .action(async (entry: string, flags) => run((await probation()).rejectCommand(entry, flags, io)));

  harness
    .command("pin")
    .description(
      "keep a lesson on probation as it is: its verdicts are still recorded but no longer promote, revert or retire it",
    )
    .argument("<entry>", "entry id on probation, or a unique prefix of it")
    .option("--off", "release it: verdicts act on it again")
    .action(async (entry: string, flags) => run((await probation()).pinCommand(entry, flags, io)));

  scoped(
    harness
      .command("verify")
      .description(
        "replay the task(s) an edit was learnt from, without and with it, in scratch copies of the files, and compare",
      )
      .argument("<rev>", "revision id, a unique prefix of it, or its #N in `relm harness log`")
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
  ).action(async (rev: string, flags) =>
    run((await import("./harness-verify.js")).verifyCommand(rev, flags, io)),
  );
}
