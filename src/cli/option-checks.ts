// The checks of session options that need more than the option table's layer (config/): a kernel URI,
// a --var name and file, host names, the sandbox's network rules. The table marks those options
// `checkedAbove`; AboveChecks makes this list name each of them, so a new one cannot go unchecked.

import { parseVariableFlag } from "../agent/core/variables.js";
import { checkKernelUri } from "../agent/kernel-api/kernel-target.js";
import type { ResolvedConfig } from "../config/config.js";
import { type AboveChecks, checkSpec, type SessionSpec } from "../config/options.js";
import { parseAllowWeb } from "../web/policy.js";
import { sandboxOf } from "./sandbox-flags.js";

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
  // With what else may ask for the sandbox (`--sandbox`, `--kernel sandbox`, RELM_SANDBOX, the config),
  // as the session will be built (cli/setup.ts).
  allowNet: (_values, { spec, config, env }) =>
    void sandboxOf(spec.kernel?.trim() === "sandbox" ? { ...spec, sandbox: true } : spec, config, env),
  allowWeb: (values) => void parseAllowWeb(values),
};

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
}
