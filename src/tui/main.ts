// The full-screen terminal UI's entry points. Loaded lazily (never by `relm --version`, `relm run` or
// `relm -p`): the CLI imports this module only when stdin and stdout are a terminal.

import { join } from "node:path";
import { ProcessTerminal, TUI } from "@mariozechner/pi-tui";
import { isRemoteKernel, modeOf } from "../agent/mode-choice.js";
import { endpointName, type ResolvedConfig, relmHomeFrom, resolveConfig } from "../config/config.js";
import { UsageError } from "../config/errors.js";
import type { SessionSpec } from "../config/options.js";
import { describeMode } from "../config/permission-mode.js";
import { inheritedSpec } from "../config/session-spec.js";
import { relmVersion } from "../config/version.js";
import { gitBranch } from "../host/info.js";
import { listSessions } from "../host/states/discovery.js";
import { cachedProbe } from "../kernel/sandbox/index.js";
import { checkPricedForMaxCost } from "../llm/index.js";
import { resolveSessionId, sessionsDir } from "../session/index.js";
import { App, type AppOptions } from "./app.js";
import { loginFlow } from "./dialogs/login.js";
import { reachedBy } from "./dialogs/login-subscription.js";
import { askProjectTrustDialog } from "./dialogs/trust-dialog.js";
import { chooseFirstModel } from "./first-model.js";
import { drawNow, paceFrames } from "./input/eager-input.js";
import { DEFAULT_PASTE_THRESHOLD } from "./input/pastes.js";
import { pickSession } from "./slash-session.js";
import { makeTheme } from "./theme.js";
import { startTheme } from "./theme-choice.js";
import { ensureHighlighter } from "./transcript/highlight-lazy.js";

/** What the UI opens with. */
export interface TuiStart {
  /** A new session in io.cwd (default), optionally with its first message. */
  task?: string;
  /** `relm --continue`: the last session of this directory (a new one when there is none). */
  continueLast?: boolean;
  /** `relm --resume` with no id: a picker of this directory's sessions. */
  pickSession?: boolean;
  /** `relm attach ID` / `relm run --resume ID`: this session (full id or unique prefix). */
  sessionId?: string;
  /** `relm run --resume ID "text"`: sent to the resumed session as its next message. */
  resumeMessage?: string;
  /**
   * `relm run --resume ID`: bring the session's host back at once, so work that was cut off continues
   * (`relm --resume ID` only shows it, and resumes it with the next message).
   */
  continueWork?: boolean;
}

/**
 * The command-line options the UI honours: the session options of `relm` itself (config/options.ts), all
 * given to every host it starts. Per-task options (gates, goal, autonomy) are asked for per session instead.
 */
type TuiFlags = SessionSpec;

interface TuiIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** The session options a new host is started with (those `relm run --detach` passes on, less per-task ones). */
export function tuiHostSpec(flags: TuiFlags, cwd: string): SessionSpec {
  return inheritedSpec(flags, cwd, { task: false });
}

/**
 * The options a saved session is brought back with: as for a new one, less --var (a session's variables
 * are loaded once, at its start). They replace what the session remembers, as with `relm run --resume`.
 */
export function tuiResumeSpec(flags: TuiFlags, cwd: string): SessionSpec {
  return inheritedSpec(flags, cwd, { task: false, variables: false });
}

function configured(config: ResolvedConfig): AppOptions["configured"] {
  return {
    model: config.model.model ?? "",
    provider: config.model.provider,
    via: endpointName(config.model),
    baseUrl: config.model.baseUrl,
    apiKey: config.model.apiKey,
    preset: config.model.preset,
  };
}

/** The mode a new session starts in, said before any host exists; a bad mode word stops the UI here. */
function startMode(env: NodeJS.ProcessEnv, flags: TuiFlags, config: ResolvedConfig): AppOptions["startMode"] {
  const uri = flags.kernel ?? config.kernel;
  const cacheDir = join(config.home, "cache");
  const choice = modeOf(flags, config, env, cacheDir, isRemoteKernel(uri));
  return {
    mode: choice.mode,
    ...(choice.warning ? { warning: choice.warning } : {}),
    // Asked when shift+tab needs it: a start whose mode is given runs no trial.
    sandbox: () => cachedProbe(env, cacheDir),
  };
}

function pasteThreshold(env: NodeJS.ProcessEnv): number {
  const n = Number(env.RELM_PASTE_THRESHOLD);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_PASTE_THRESHOLD;
}

/** Runs `body` with the terminal in the UI's hands, and gives it back whatever happens. */
async function withTerminal<T>(body: (tui: TUI) => Promise<T>): Promise<T> {
  const tui = new TUI(new ProcessTerminal());
  paceFrames(tui);
  const restore = () => tui.stop();
  const resized = () => drawNow(tui); // not at a paced slot
  process.once("exit", restore);
  process.stdout.on("resize", resized);
  try {
    tui.start();
    return await body(tui);
  } finally {
    process.off("exit", restore);
    process.stdout.off("resize", resized);
    tui.stop();
  }
}

/** Runs the UI until the person leaves; returns the process exit code. */
export async function runTui(start: TuiStart, flags: TuiFlags, io: TuiIo): Promise<number> {
  // Configuration mistakes are reported before the screen is taken over.
  const config = resolveConfig(io.env, flags);
  const { home } = config;
  checkPricedForMaxCost(flags.maxCost, config);
  const initial = configured(config);
  if (start.sessionId) resolveSessionId(sessionsDir(home), start.sessionId);
  const mode = startMode(io.env, flags, config);
  const theme = makeTheme(io.env, await startTheme(io.env, home));
  let farewell: string | undefined;
  const code = await withTerminal(async (tui) => {
    const app = new App({
      tui,
      theme,
      env: io.env,
      cwd: io.cwd,
      home,
      configured: initial,
      startMode: mode,
      branch: gitBranch(io.cwd),
      version: relmVersion(),
      hostSpec: tuiHostSpec(flags, io.cwd),
      resumeSpec: tuiResumeSpec(flags, io.cwd),
      pasteThreshold: pasteThreshold(io.env),
      reloadConfig: () => {
        try {
          return configured(resolveConfig(io.env, flags));
        } catch {
          return undefined;
        }
      },
    });
    const onSignal = () => app.detach();
    process.on("SIGTERM", onSignal);
    process.on("SIGHUP", onSignal);
    try {
      tui.requestRender();
      // Loaded while the first frame is drawn (file reads are asynchronous), awaited before any code is shown.
      const highlighter = ensureHighlighter();
      if (!(await opening(app, start, initial.model === "", highlighter))) return 130;
      const result = await app.exited;
      farewell = app.farewellMessage;
      return result;
    } finally {
      process.off("SIGTERM", onSignal);
      process.off("SIGHUP", onSignal);
    }
  });
  if (farewell) io.stdout.write(`${farewell}\n`);
  return code;
}

/** What the UI does first; false when the person cancelled the first-launch picker with Ctrl-C. */
async function opening(
  app: App,
  start: TuiStart,
  needsLogin: boolean,
  highlighter: Promise<void>,
): Promise<boolean> {
  let noModel = false;
  if (needsLogin && !start.sessionId && !start.continueLast && !start.pickSession) {
    const chosen = await chooseFirstModel(app);
    if (chosen === "interrupted") return false;
    noModel = chosen === "cancelled";
    // A first launch says what the agent's code may do here, and how to change it.
    app.note(firstLaunchMode(app));
  }
  await highlighter;
  try {
    // Project files that steer the host are used once trusted: asked before any session starts here.
    await askProjectTrustDialog(app);
    // The task given on the command line waits in the input when the picker was left without a model.
    if (start.task && noModel) app.editor.setText(start.task);
    else if (start.task) await app.submit(start.task);
    else if (start.continueLast) {
      // The one worked on last (not the one started last): what "continue" means to a person.
      const here = (await listSessions(app.home)).filter((s) => s.cwd === app.cwd);
      const last = here.sort((a, b) => b.lastActivity.localeCompare(a.lastActivity))[0];
      if (last) await app.openSession(last.id);
      else app.note(app.theme.dim("no earlier session in this directory: this is a new one"));
      if (start.resumeMessage) await app.submit(start.resumeMessage);
    } else if (start.pickSession) {
      const id = await pickSession(app);
      if (id) await app.openSession(id);
    } else if (start.sessionId) {
      await app.openSession(resolveSessionId(sessionsDir(app.home), start.sessionId));
      if (start.resumeMessage) await app.submit(start.resumeMessage);
      else if (start.continueWork) await app.ensureLive({ continueWork: true });
    }
  } catch (error) {
    app.note(app.theme.error(`✗ ${(error as Error).message}`));
  }
  app.tui.requestRender();
  return true;
}

/** The first launch's line about the permission mode the user gets (the status line keeps showing it). */
function firstLaunchMode(app: App): string {
  const mode = app.mode;
  const change = "shift+tab or /mode changes it; docs/sandbox.md";
  const warning = app.startWarning;
  if (warning) return app.theme.warn(`⚠ Permission mode: full — ${warning} (${change})`);
  return app.theme.accent(`⊡ Permission mode: ${mode} — ${describeMode(mode)} (${change})`);
}

/** `relm login` in a terminal (and /login): the provider picker; exit 0 saved, 1 left, 130 cancelled. */
export async function runLoginUi(_flags: TuiFlags, io: TuiIo): Promise<number> {
  const home = relmHomeFrom(io.env);
  let outcome: Awaited<ReturnType<typeof loginFlow>> | undefined;
  await withTerminal(async (tui) => {
    outcome = await loginFlow({ tui, theme: makeTheme(io.env) }, io.env, home);
  });
  if (!outcome) throw new UsageError("login did not finish");
  if (outcome.status === "saved") {
    io.stdout.write(
      `saved ${outcome.path} (${outcome.config.model} ${reachedBy(outcome.config)}); check it with \`relm doctor\`\n`,
    );
    // What the test request found: not only inside the picker, which is gone once relm login ends.
    io.stdout.write(`${outcome.tested}\n`);
    return 0;
  }
  io.stderr.write("relm: login cancelled; nothing was written\n");
  return outcome.status === "interrupted" ? 130 : 1;
}
