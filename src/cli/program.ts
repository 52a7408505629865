import { text } from "node:stream/consumers";
import { Command, Option } from "commander";
import { UsageError } from "../config/errors.js";
import { checkGoal } from "../config/option-values.js";
import { checkNumbers, type SessionSpec } from "../config/options.js";
import { takeSpecFile } from "../config/session-spec.js";
import { relmVersion } from "../config/version.js";
import { registerHarnessCommands } from "../learning/commands/harness-command.js";
import type { WebFlags } from "../webui/run.js";
import { registerAcpCommand } from "./acp-command.js";
import { refuseBlankValues } from "./blank-values.js";
import { addOptions } from "./command-options.js";
import { loginAction, openTui, resumeRunUsesUi, taskOf, terminalOf } from "./front-end.js";
import { registerMcpCommands } from "./mcp/command.js";
import { registerModelsCommand } from "./models-command.js";
import { commandNames, tagParseErrors } from "./parse-errors.js";
import type { RunIo } from "./run.js";
import { registerScheduleCommands } from "./schedules/command.js";
import { registerCheckpointCommands } from "./sessions/checkpoints.js";
import { registerSessionCommands } from "./sessions/command.js";

/** The process's streams, environment and directory; whether stderr takes colour is decided here. */
export function buildProgram(io: Omit<RunIo, "color">, setExit: (code: number) => void): Command {
  const color = Boolean((io.stderr as NodeJS.WriteStream).isTTY) && !io.env.NO_COLOR;
  const runIo = { ...io, color };
  const program = new Command("relm")
    .description("A recursive language model agent: the model works in a persistent IPython kernel.")
    .version(relmVersion(), "-V, --version")
    .enablePositionalOptions()
    .showSuggestionAfterError()
    .exitOverride()
    .helpCommand(true)
    // Parse errors are printed by reportError (parse-errors.ts), with the failing command's usage.
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: () => {},
    });

  // `relm`, `relm "task"`, `relm --continue`, `relm --resume [ID]`: front-end.ts decides UI or line mode.
  addOptions(
    program
      .argument("[task...]", "a first message (without a terminal: run it once, like relm run)")
      .option("-c, --continue", "reopen this directory's last session")
      .option("-r, --resume [id]", "reopen a session (without an id: pick one)"),
    ["model", "session"],
  ).action(async (words: string[], flags) => {
    const { rootAction } = await import("./root-command.js");
    setExit(await rootAction(words, flags, runIo, commandNames(program)));
  });

  addOptions(
    program
      .command("run")
      .description("run one task to its end; the answer goes to stdout, progress to stderr (alias: relm -p)")
      .argument("[task...]", "what to do (read from stdin when omitted and stdin is not a terminal)"),
    ["run", "model", "session"],
  ).action(async (words: string[], given: SessionSpec) => {
    if (given.asHost) {
      setExit(await hostAction(words, given, runIo));
      return;
    }
    const flags = runFlags(given);
    const task =
      words.length > 0
        ? taskOf(words)
        : flags.resume || flags.interactive
          ? undefined
          : flags.goal
            ? flags.goal
            : await readTaskFromStdin();
    if (resumeRunUsesUi(flags, terminalOf(io))) {
      setExit(
        await openTui({ sessionId: flags.resume, resumeMessage: task, continueWork: true }, flags, runIo),
      );
      return;
    }
    if (flags.detach) {
      const { launchDetached } = await import("./launch.js");
      setExit(await launchDetached(task, flags, runIo));
      return;
    }
    // A resumed session is taken before the agent is loaded, as a host binds its socket above: a process
    // that loses a race for it exits having loaded little more than this file.
    const claimed = flags.resume
      ? await (await import("./claim.js")).claimSession(flags.resume, io.env)
      : undefined;
    const { runOnce } = await import("./run.js");
    setExit(await runOnce(task, flags, runIo, {}, undefined, claimed));
  });

  program
    .command("demo")
    .description("run a real end-to-end session against a scripted model on 127.0.0.1 (no API key needed)")
    .option("--json", "print every event as one JSON line on stdout")
    .action(async (flags) => {
      const { runDemo } = await import("./demo.js");
      setExit(await runDemo(flags, runIo));
    });

  addOptions(
    program
      .command("doctor")
      .description("check Python, IPython, configuration, the endpoint, and relm's own state")
      .option("--fix", "repair what it finds: stale sockets, orphan kernels, half-written journal lines")
      .option(
        "--kernel <URI>",
        "also check the Python where kernels of this URI run (default: config's kernel)",
      ),
    ["model"],
  ).action(async (flags) => {
    const { doctor } = await import("./doctor/doctor.js");
    setExit(await doctor(flags, runIo));
  });

  program
    .command("export")
    .description("write a session as Markdown, HTML, a Jupyter notebook or raw JSON lines")
    .argument("<id>", "session id or a unique prefix of it")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["md", "html", "ipynb", "jsonl"])
        .default("md"),
    )
    .option("-o, --output <file>", "write to a file instead of stdout")
    .action(async (id: string, flags) => {
      const { exportCommand } = await import("./sessions/export.js");
      setExit(await exportCommand(id, flags, runIo));
    });

  addOptions(
    program
      .command("login")
      .description("choose a provider, endpoint, model and key; saved to $RELM_HOME/config.json (mode 0600)")
      .argument("[subscription]", "sign in with a subscription instead: claude, chatgpt or copilot")
      .option("--api-key-stdin", "read the API key from stdin instead of prompting")
      .option("--device", "subscription sign-in with a device code (a browser on another machine)")
      .option(
        "--search [provider]",
        "set up web search for search() in the kernel: searxng, brave, tavily, serper or exa (docs/toolkit.md)",
      )
      .addHelpText(
        "after",
        [
          "",
          "Subscriptions (tokens in $RELM_HOME/auth.json, mode 0600; see docs/subscriptions.md):",
          "  relm login claude     Claude Pro/Max: browser sign-in; over ssh paste the address the browser ends on",
          "  relm login chatgpt    ChatGPT Plus/Pro (the Codex sign-in): browser, or --device",
          "  relm login copilot    GitHub Copilot: device code at github.com",
          "  relm logout [NAME]    remove a subscription's tokens (no NAME: every sign-in and the saved key)",
          "--max-cost counts a subscription's tokens at API list prices.",
        ].join("\n"),
      ),
    ["model"],
  ).action(async (subscription: string | undefined, flags) => {
    if (flags.search !== undefined) {
      const { loginSearch } = await import("./login/search.js");
      setExit(await loginSearch(flags, runIo));
      return;
    }
    if (subscription !== undefined) {
      const { subscriptionLogin } = await import("./login/subscription.js");
      setExit(await subscriptionLogin(subscription, flags, runIo));
      return;
    }
    if (flags.device)
      throw new UsageError("--device is for a subscription's sign-in: relm login chatgpt --device");
    setExit(await loginAction(flags, runIo));
  });

  program
    .command("logout")
    .description("sign out: a subscription's tokens, or with no name every sign-in and the saved API key")
    .argument("[name]", "claude, chatgpt, copilot, or key (the API key in config.json)")
    .action(async (name: string | undefined) => {
      const { logout } = await import("./login/logout.js");
      setExit(await logout(name, runIo));
    });

  registerModelsCommand(program, runIo, setExit);
  registerSessionCommands(program, runIo, setExit);
  registerScheduleCommands(program, runIo, setExit);
  registerHarnessCommands(program, io, setExit);
  registerCheckpointCommands(program, io, setExit);
  registerMcpCommands(program, runIo, setExit);

  program
    .command("trust")
    .description(
      "review and approve this project's files that steer relm (.relm/hooks.json, .mcp.json servers, specs with kernel:)",
    )
    .option("-y, --yes", "approve what is listed without asking")
    .option("--list", "only list them and whether each is trusted")
    .option("--revoke", "forget every approval of this project")
    .action(async (flags: { yes?: boolean; list?: boolean; revoke?: boolean }) =>
      setExit(await (await import("./trust-command.js")).trustAction(runIo, flags)),
    );

  registerAcpCommand(program, runIo, setExit);

  // Before `relm web`: its flags are checked by web-entry.ts, which parses them before commander and
  // says what a blank --host or --port should be.
  refuseBlankValues(program);

  // `relm web`: the sessions in a browser (docs/web.md); its usual flags skip this parser (web-entry.ts).
  program
    .command("web")
    .description("every session live in a browser: a local server, its address printed with a token")
    .option("--port <n>", "the port to listen on (default 8765; 0: any free port)")
    .option(
      "--host <addr>",
      "the address to listen on (default 127.0.0.1; see docs/web.md before changing it)",
    )
    .option("--open", "open the address in a browser")
    .action(async (flags: WebFlags) => setExit(await (await import("../webui/run.js")).runWeb(flags, runIo)));
  tagParseErrors(program);
  return program;
}

/**
 * `relm run --as-host ID`: a detached host. It binds its socket before loading the agent (or was handed
 * it, bindEarly): it is the session's lock, and the launcher is waiting for it. So everything it checks
 * after that runs inside the try: a host that fails while it starts (a blank message it was revived with,
 * a spec it cannot read) must close the socket, or it stays alive holding the lock and its launcher
 * waits for an answer that never comes.
 */
async function hostAction(words: string[], given: SessionSpec, runIo: RunIo): Promise<number> {
  const id = given.asHost as string;
  const [{ SessionServer }, { relmHomeFrom }, { takeEarlyBound }] = await Promise.all([
    import("../host/server.js"),
    import("../config/config.js"),
    import("../host/early-bind.js"),
  ]);
  const bound = takeEarlyBound(id) ?? (await SessionServer.listen(relmHomeFrom(runIo.env), id));
  try {
    const flags = runFlags(given);
    const task = words.length > 0 ? taskOf(words) : undefined;
    const { runAsHost } = await import("./run.js");
    return await runAsHost(task, flags, runIo, bound);
  } catch (error) {
    await bound.close("the session host could not start");
    throw error;
  }
}

/**
 * relm run's flags: a host a front end started has its options in the spec file it was handed (read once
 * and removed). Checked before anything starts: a bad value found after the session's kernel is up would
 * leave the user waiting for a start-up that ends in a usage error (the budget flags are checked with the
 * session's).
 */
function runFlags(given: SessionSpec): SessionSpec {
  const flags = given.spec ? { ...given, ...takeSpecFile(given.spec) } : given;
  checkNumbers(flags, ["gateTimeout", "maxGateFailures", "idleTimeout"]);
  if (flags.goal !== undefined) checkGoal(flags.goal, "--goal");
  return flags;
}

async function readTaskFromStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('no task given: relm run "what to do"');
  const task = (await text(process.stdin)).trim();
  if (task.length === 0) throw new UsageError("no task given on stdin");
  return task;
}
