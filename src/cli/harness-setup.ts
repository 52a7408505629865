import { delimiter } from "node:path";
import type { EventSink } from "../agent/events.js";
import { trackHarnessUses } from "../agent/harness-uses.js";
import type { TreeOptions } from "../agent/tree.js";
import { ConfigError } from "../config/errors.js";
import { type HarnessContext, HarnessLogError, loadHarness } from "../learning/store/index.js";

export interface SessionHarness {
  option: NonNullable<TreeOptions["harness"]>;
  /** SKILL.md files left out (bad front matter), one line each: the session warns about them. */
  warnings: string[];
  /** The kernels' environment with every skill package folder on PYTHONPATH. */
  env: NodeJS.ProcessEnv;
  sink: EventSink;
}

/**
 * The harness of a session tree, read once: its prompt block (frozen for the whole session, so every
 * request extends the previous one byte for byte), skill packages importable in every kernel, and a
 * sink that counts uses of its entries.
 */
export function sessionHarness(
  ctx: HarnessContext,
  env: NodeJS.ProcessEnv,
  sink: EventSink,
  refineModel?: string,
): SessionHarness {
  let loaded: ReturnType<typeof loadHarness>;
  try {
    loaded = loadHarness(ctx);
  } catch (error) {
    if (error instanceof HarnessLogError)
      throw new ConfigError(`${error.message}; fix the file or move it away`);
    throw error;
  }
  const paths = [...loaded.skillPaths, ...(env.PYTHONPATH ? [env.PYTHONPATH] : [])];
  return {
    option: {
      block: loaded.block,
      skillPaths: loaded.skillPaths,
      specs: loaded.specs,
      refineModel,
      reload: (sessionDir) => loadHarness({ ...ctx, sessionDir }).block,
    },
    warnings: loaded.problems,
    env: paths.length > 0 ? { ...env, PYTHONPATH: paths.join(delimiter) } : env,
    sink: trackHarnessUses(sink, loaded, ctx),
  };
}
