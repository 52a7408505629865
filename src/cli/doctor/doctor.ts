import { existsSync } from "node:fs";
import { join } from "node:path";
import { configuredMode } from "../../agent/mode-choice.js";
import { type ConfigFlags, noModelMessage, type ResolvedConfig, resolveConfig } from "../../config/config.js";
import { ConfigError, isUserError } from "../../config/errors.js";
import { homeProblem } from "../../config/home-check.js";
import { sandboxed } from "../../config/permission-mode.js";
import { relmVersion } from "../../config/version.js";
import { findProblems } from "../../host/doctor/doctor.js";
import { ensureWaker } from "../../host/spawn.js";
import { findPython } from "../../kernel/index.js";
import { cachedProbe } from "../../kernel/sandbox/index.js";
import { learningChecks } from "../../learning/commands/doctor-checks.js";
import { listModels } from "../../llm/models.js";
import { EXIT } from "../exit-codes.js";
import type { RunIo } from "../run.js";
import { subscriptionCheck } from "../subscription-session.js";
import { type Check, check } from "./check.js";
import { kernelCheck, kernelUriOf } from "./kernel.js";
import { webCheck } from "./web.js";

/**
 * Asks the endpoint for its model list (as the login picker does, in the preset's way): cheap, needs no
 * tokens, and tells a bad key from a dead server.
 */
async function probeEndpoint(
  m: ResolvedConfig["model"],
  model: string,
  env: NodeJS.ProcessEnv,
): Promise<Check> {
  const base = m.baseUrl.replaceAll("{model}", model);
  const listed = await listModels(m.provider, base, m.apiKey, { preset: m.preset, env });
  if ("error" in listed) {
    const { error, status } = listed;
    if (status === 401 || status === 403) return check("endpoint", false, error);
    if (status !== undefined) return check("endpoint", "warn", `${error} (it may not list models)`);
    return check("endpoint", false, `${error}; is the server running?`);
  }
  if (listed.ids.length > 0 && !listed.ids.includes(model)) {
    const some = listed.ids.slice(0, 8).join(", ");
    return check("endpoint", false, `reachable, but model "${model}" is not listed (has: ${some})`);
  }
  const serves = listed.ids.includes(model) ? `, serves ${model}` : "";
  return check("endpoint", true, `${listed.url} reachable${serves}`);
}

export async function doctor(
  flags: ConfigFlags & { fix?: boolean; kernel?: string },
  io: RunIo,
): Promise<number> {
  const checks = [check("relm", true, `${relmVersion()} on Node ${process.version}`)];
  let config: ReturnType<typeof resolveConfig>;
  try {
    config = resolveConfig(io.env, flags);
  } catch (error) {
    // A config.json value of the wrong type (or a bad URL): everything else depends on the config.
    if (!(error instanceof ConfigError)) throw error;
    checks.push(check("config", false, error.message));
    printChecks(checks, io);
    return EXIT.error;
  }
  const found = config.configFound ? "" : " (not present; using the environment)";
  checks.push(check("config", true, `${config.configPath}${found}`));

  const home = homeProblem(config.home);
  checks.push(
    home
      ? check(
          "home",
          false,
          `RELM_HOME ${config.home} cannot be used: ${home}. Point RELM_HOME at a writable directory.`,
        )
      : check(
          "home",
          true,
          existsSync(config.home) ? config.home : `${config.home} (created when first needed)`,
        ),
  );

  let kernelPython: { path: string; env: NodeJS.ProcessEnv } | undefined;
  try {
    const env = config.python ? { ...io.env, RELM_PYTHON: config.python } : io.env;
    const python = await findPython(env, join(config.home, "cache"));
    kernelPython = { path: python.path, env: io.env };
    checks.push(
      python.ipython
        ? check("python", true, `${python.path} (Python ${python.version}, IPython ${python.ipython})`)
        : check(
            "python",
            "warn",
            `${python.path} (Python ${python.version}) has no IPython: cells run as plain Python without ` +
              "!commands or %magics. Install it with `sudo apt-get install python3-ipython` " +
              "(or `pip install ipython`), or point RELM_PYTHON at an interpreter that has it.",
          ),
    );
  } catch (error) {
    checks.push(check("python", false, (error as Error).message));
  }
  try {
    const kernel = await kernelCheck(kernelUriOf(flags.kernel, config), io.cwd, io.env);
    if (kernel) checks.push(kernel);
  } catch (error) {
    // config.json's kernel is not a kernel URI (a bad --kernel is a usage error, exit 2).
    if (!(error instanceof ConfigError)) throw error;
    checks.push(check("kernel", false, error.message));
  }

  // A SKILL.md with bad front matter, a damaged revision log line: left out of every session, each named.
  // A skill named like a module the kernels' Python has (json): never imported, so said why.
  checks.push(...learningChecks({ cwd: io.cwd, home: config.home }, kernelPython));

  checks.push(sandboxCheck(io.env, config));
  checks.push(webCheck(config, io.env));

  const m = config.model;
  const signedIn = subscriptionCheck(config);
  const key = signedIn
    ? "signed in with a subscription"
    : m.apiKey
      ? `API key set (from ${m.sources.apiKey})`
      : "no API key";
  checks.push(
    check(
      "model",
      m.model !== undefined,
      m.model
        ? `${m.model} via ${m.preset === m.provider ? m.provider : `${m.preset} (${m.provider})`} at ${m.baseUrl} (provider from ${m.sources.provider}); ${key}`
        : `none configured.\n${noModelMessage().replace(/^/gm, "    ")}`,
    ),
  );
  // A subscription's API needs its OAuth headers, which an unauthenticated probe lacks: its sign-in is checked.
  if (signedIn) checks.push(signedIn);
  else if (m.model) checks.push(await probeEndpoint(m, m.model, io.env));

  printChecks(checks, io);
  // Nothing of relm's state can be read or repaired in a RELM_HOME that cannot be written.
  const stateOk = home ? false : await checkState(config.home, flags.fix === true, io);
  return checks.some((c) => c.ok === false) || !stateOk ? EXIT.error : EXIT.done;
}

/**
 * Whether the sandboxed modes (workspace, plan) can work here — bubblewrap and its namespaces, tried
 * afresh and kept for the sessions' default (agent/mode-choice.ts) — and the mode new sessions get. A
 * FAIL only when the config asks for a sandboxed mode.
 */
function sandboxCheck(env: NodeJS.ProcessEnv, config: ResolvedConfig): Check {
  // As a session started without flags chooses: RELM_MODE, RELM_SANDBOX, then config.json.
  let chosen: ReturnType<typeof configuredMode>;
  try {
    chosen = configuredMode(config, env);
  } catch (error) {
    if (isUserError(error)) return check("sandbox", false, error.message);
    throw error;
  }
  const wanted = chosen !== undefined && sandboxed(chosen.mode);
  const probe = cachedProbe(env, join(config.home, "cache"), true);
  const source = chosen?.asked ?? "the default";
  if (probe.ok) {
    return check(
      "sandbox",
      true,
      `${probe.detail}; new sessions: mode ${chosen?.mode ?? "workspace"} (${source})`,
    );
  }
  return check(
    "sandbox",
    wanted ? false : "warn",
    `--mode workspace and plan unavailable: ${probe.detail}; new sessions: mode full (${source}); to sandbox them, ${probe.fix ?? "see docs/sandbox.md"}`,
  );
}

function printChecks(checks: Check[], io: RunIo): void {
  for (const c of checks) {
    const mark = c.ok === true ? "ok  " : c.ok === "warn" ? "warn" : "FAIL";
    io.stdout.write(`${mark}  ${c.label.padEnd(9)} ${c.detail}\n`);
  }
}

/**
 * relm's own files and processes: stale sockets, orphan kernels, torn or damaged journals; repaired with
 * --fix where a repair is safe, else the person is told what to do.
 */
async function checkState(home: string, fix: boolean, io: RunIo): Promise<boolean> {
  const problems = await findProblems(home, () => ensureWaker(home, io.env));
  if (problems.length === 0) {
    io.stdout.write("ok    sessions  no stale sockets, orphan kernels, torn or damaged journals\n");
    return true;
  }
  let allFixed = fix;
  for (const p of problems) {
    if (!p.apply) {
      io.stdout.write(`FAIL  sessions  ${p.problem} (by hand: ${p.fix})\n`);
      allFixed = false;
    } else if (fix) {
      await p.apply();
      io.stdout.write(`fixed sessions  ${p.problem}: ${p.fix}\n`);
    } else {
      io.stdout.write(`FAIL  sessions  ${p.problem} (relm doctor --fix would ${p.fix})\n`);
    }
  }
  return allFixed;
}
