import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, type TestContext } from "vitest";
import { findPython } from "../../src/kernel/python.js";
import {
  type ScriptedModel,
  type ScriptedModelOptions,
  startScriptedModel,
} from "../../src/scripted/index.js";
import { cleanEnv, kernelsLeft, tempDir } from "./cli.js";
import { supportsAll } from "./harness.js";

export type Format = "openai" | "anthropic";

export interface Rig {
  model: ScriptedModel;
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Request bodies the model received, in order. */
  bodies(): string[];
  close(): Promise<void>;
}

let probed: Promise<Map<string, string>> | undefined;

/**
 * What relm's interpreter probe (src/kernel/python.ts) leaves in RELM_HOME/cache, made once per test
 * worker by relm's own findPython with the tests' environment: each rig's home starts with it, as a
 * user's home does after their first run. A probe costs ~0.1 CPU-s (python3 through a pyenv shim:
 * a dozen shell processes), paid once per fresh home, hundreds of times a suite. The cache is keyed by
 * the candidates on PATH, so a test that gives relm another PATH or RELM_PYTHON is probed as before.
 */
function probedPythonCache(): Promise<Map<string, string>> {
  probed ??= (async () => {
    const dir = tempDir("relm-probe-");
    try {
      await findPython(cleanEnv(), dir.path);
      return new Map(readdirSync(dir.path).map((f) => [f, readFileSync(join(dir.path, f), "utf8")]));
    } catch {
      return new Map(); // no usable Python: each relm finds that out itself, as before
    } finally {
      dir.cleanup();
    }
  })();
  return probed;
}

/**
 * A scripted model on 127.0.0.1 plus a private RELM_HOME and working directory, with the environment
 * a user would set to point relm at it. Relevance checks of refinements are answered "supports" unless
 * `options.before` says otherwise (test/support/harness.ts relevanceAnswer).
 */
export async function startRig(
  format: Format,
  options: ScriptedModelOptions,
  extra: { stream?: boolean; env?: Record<string, string>; config?: Record<string, unknown> } = {},
): Promise<Rig> {
  // The refine model's relevance check says yes to every edit unless a test answers it (`before`).
  const model = await startScriptedModel({ before: supportsAll, ...options });
  const home = tempDir("relm-home-");
  const cwd = tempDir("relm-cwd-");
  mkdirSync(home.path, { recursive: true });
  const cache = await probedPythonCache();
  if (cache.size > 0) mkdirSync(join(home.path, "cache"));
  for (const [file, text] of cache) writeFileSync(join(home.path, "cache", file), text);
  writeFileSync(
    join(home.path, "config.json"),
    JSON.stringify({ stream: extra.stream ?? true, retry: { baseMs: 5, maxMs: 50 }, ...extra.config }),
  );
  const env = cleanEnv({
    RELM_HOME: home.path,
    RELM_PROVIDER: format,
    RELM_BASE_URL: format === "openai" ? model.openaiBaseUrl : model.anthropicBaseUrl,
    RELM_MODEL: "scripted",
    ...extra.env,
  });
  return {
    model,
    home: home.path,
    cwd: cwd.path,
    env,
    bodies: () => model.requests.map((r) => r.rawBody),
    close: async () => {
      await model.close();
      home.cleanup();
      cwd.cleanup();
    },
  };
}

/** Once relm has exited, none of the kernels it started may still be running; then the rig is closed. */
async function checkAndClose(rigs: Rig[]): Promise<void> {
  try {
    for (const rig of rigs) expect(await kernelsLeft(rig.home)).toEqual([]);
  } finally {
    for (const rig of rigs) await rig.close();
  }
}

/** `startRig` for a test file: every rig started in a test is checked and closed after it. */
export function useRigs(): typeof startRig {
  let started: Rig[] = [];
  afterEach(async () => {
    const rigs = started;
    started = [];
    await checkAndClose(rigs);
  });
  return async (...args) => {
    const rig = await startRig(...args);
    started.push(rig);
    return rig;
  };
}

/**
 * `startRig` for a test that runs beside the others of its file (`concurrent`: their time goes on
 * waiting out idle timeouts and schedules, not on the CPU): the rig is checked and closed when this
 * test finishes, not when another one does, as useRigs' afterEach would.
 */
export async function rigFor(
  context: Pick<TestContext, "onTestFinished">,
  ...args: Parameters<typeof startRig>
): Promise<Rig> {
  const rig = await startRig(...args);
  context.onTestFinished(() => checkAndClose([rig]));
  return rig;
}
