// The checks of session options that need more than the option table's layer (config/): a kernel URI,
// a --var name and file, host names, the sandbox's network rules. The table marks those options
// `checkedAbove`; AboveChecks makes this list name each of them, so a new one cannot go unchecked.

import { join } from "node:path";
import { parseVariableFlag } from "../agent/core/variables.js";
import { checkKernelUri } from "../agent/kernel-api/kernel-target.js";
import { isRemoteKernel, modeOf } from "../agent/mode-choice.js";
import { parseApprove } from "../config/approvals.js";
import type { ResolvedConfig } from "../config/config.js";
import { type AboveChecks, checkSpec, type SessionSpec } from "../config/options.js";
import { checkPricedForMaxCost } from "../llm/index.js";
import { parseAllowWeb } from "../web/policy.js";

interface Context {
  spec: SessionSpec;
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: ResolvedConfig;
}

const ABOVE: AboveChecks<Context> = {
  var: (values, { cwd }) => {
    for (const value of values) parseVariableFlag(value, cwd);
  },
  kernel: (uri) => void checkKernelUri(uri, "--kernel"),
  // The mode and --allow-net with what else decides the mode (`--sandbox`, `--kernel sandbox`, RELM_MODE,
  // RELM_SANDBOX, the config, the default), as the session will be built (cli/setup.ts).
  mode: (_value, { spec, config, env }) => void sessionMode(spec, config, env),
  allowNet: (_values, { spec, config, env }) => void sessionMode(spec, config, env),
  allowWeb: (values) => void parseAllowWeb(values),
  approve: (value) => void parseApprove(value, "--approve"),
};

/** The mode a new session with these options gets (a bad mode word or --allow-net is a UsageError). */
export function sessionMode(spec: SessionSpec, config: ResolvedConfig, env: NodeJS.ProcessEnv) {
  return modeOf(spec, config, env, join(config.home, "cache"), isRemoteKernel(spec.kernel ?? config.kernel));
}

/**
 * The session options' values, checked without building anything: for front ends that start the
 * session later or in another process (line mode, `relm run --detach`), so a mistake shows at once.
 */
export function checkSessionSpec(
  spec: SessionSpec,
  io: { cwd: string; env: NodeJS.ProcessEnv },
  config: ResolvedConfig,
): void {
  checkSpec(spec, ABOVE, { spec, cwd: io.cwd, env: io.env, config });
  checkPricedForMaxCost(spec.maxCost, config);
}
