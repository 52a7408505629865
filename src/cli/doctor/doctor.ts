import { existsSync } from "node:fs";
import { join } from "node:path";
import { configuredMode } from "../../agent/mode-choice.js";
import {
  type ConfigFlags,
  noModelMessage,
  type ResolvedConfig,
  relmHomeFrom,
  resolveConfig,
} from "../../config/config.js";
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
async function probeEndpoint(m: ResolvedConfig["model"], env: NodeJS.ProcessEnv): Promise<Check> {
  const model = m.model as string; // probed only when one is configured
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
  const { config, configCheck } = doctorConfig(io.env, flags);
  checks.push(configCheck);
  const relmHome = config?.home ?? relmHomeFrom(io.env);

  const home = homeProblem(relmHome);
  checks.push(
    home
      ? check(
          "home",
          false,
          `RELM_HOME ${relmHome} cannot be used: ${home}. Point RELM_HOME at a writable directory.`,
        )
      : check("home", true, existsSync(relmHome) ? relmHome : `${relmHome} (created when first needed)`),
  );

  let kernelPython: { path: string; env: NodeJS.ProcessEnv } | undefined;
  try {
    const env = config?.python ? { ...io.env, RELM_PYTHON: config.python } : io.env;
    const python = await findPython(env, join(relmHome, "cache"));
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
  if (config) checks.push(...(await kernelChecks(config, flags, io)));
  // A SKILL.md with bad front matter, a damaged revision log line: left out of every session, each named.
  // A skill named like a module the kernels' Python has (json): never imported, so said why.
  checks.push(...learningChecks({ cwd: io.cwd, home: relmHome }, kernelPython));
  if (config) checks.push(...(await configuredChecks(config, io)));

  printChecks(checks, io);
  // Nothing of relm's state can be read or repaired in a RELM_HOME that cannot be written.
  const stateOk = home ? false : await checkState(relmHome, flags.fix === true, io);
  return checks.some((c) => c.ok === false) || !stateOk ? EXIT.error : EXIT.done;
}

/**
 * The configuration and its check. A config.json that cannot be used is a FAIL, but not the end: the
 * other checks (Python, home, skills, sessions, an endpoint the environment names) are what the person
 * needs next, so they go on with the environment and the defaults, config.json left out. When the
 * environment is what is wrong (RELM_PROVIDER, RELM_BASE_URL), only the checks needing no config are made.
 */
function doctorConfig(
  env: NodeJS.ProcessEnv,
  flags: ConfigFlags,
): { config?: ResolvedConfig; configCheck: Check } {
  try {
    const config = resolveConfig(env, flags);
    const found = config.configFound ? "" : " (not present; using the environment)";
    return { config, configCheck: check("config", true, `${config.configPath}${found}`) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    let config: ResolvedConfig | undefined;
    let rest = "the checks below read the environment and relm's defaults, not config.json";
    try {
      config = resolveConfig(env, flags, { withoutFile: true });
    } catch (again) {
      if (!(again instanceof ConfigError)) throw again;
      // The environment is wrong as well: said now, not only once the file is fixed.
      const also = again.message === error.message ? "" : `also ${again.message}; `;
      rest = `${also}the checks below that need a configuration are left out`;
    }
    return { config, configCheck: check("config", false, `${error.message}\n    (${rest})`) };
  }
}

/** Where kernels of the configured (or --kernel) URI run, when that is not here. */
async function kernelChecks(config: ResolvedConfig, flags: { kernel?: string }, io: RunIo): Promise<Check[]> {
  try {
    const kernel = await kernelCheck(kernelUriOf(flags.kernel, config), io.cwd, io.env);
    return kernel ? [kernel] : [];
  } catch (error) {
    // config.json's kernel is not a kernel URI (a bad --kernel is a usage error, exit 2).
    if (!(error instanceof ConfigError)) throw error;
    return [check("kernel", false, error.message)];
  }
}

/** The checks that read the configuration: the sandbox, web, the model and its endpoint. */
async function configuredChecks(config: ResolvedConfig, io: RunIo): Promise<Check[]> {
  const checks = [sandboxCheck(io.env, config)];
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
  else if (m.model) checks.push(await probeEndpoint(m, io.env));
  return checks;
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
