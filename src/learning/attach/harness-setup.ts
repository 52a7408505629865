import type { EventSink } from "../../agent/core/events.js";
import type { TreeHooks } from "../../agent/hooks.js";
import { ConfigError } from "../../config/errors.js";
import type { LearnSettings } from "../../config/learn-config.js";
import { withSkillPath } from "../../kernel/index.js";
import { type HarnessContext, HarnessLogError, loadHarness, lockProjectScope } from "../store/index.js";
import type { BackgroundVerifySettings } from "../verdicts/verify-runner.js";
import { handleHarnessRequest } from "./harness-api.js";
import { trackHarnessUses } from "./harness-uses.js";
import { learningRootHooks } from "./root-hooks.js";

interface SessionHarness {
  /** What learning attaches to the session's agent tree (TreeOptions.hooks). */
  hooks: TreeHooks;
  /** SKILL.md files left out (bad front matter), one line each: the session warns about them. */
  warnings: string[];
  /**
   * The kernels' environment with every skill package folder in RELM_SKILL_PATH: relm's runner puts them
   * last on sys.path (python/relm/skillpath.py), where no skill can shadow a module Python already has.
   */
  env: NodeJS.ProcessEnv;
  sink: EventSink;
}

interface LearningSettings {
  /** The model refinements use when none is named; the calling agent's own model otherwise. */
  refineModel?: string;
  /** Online refinement of the root: config's learn section, and whether --learn turned it on. */
  learn: { settings: LearnSettings; on: boolean };
  /** How a learning session runs replay checks in the background (sessions are started by cli/). */
  verify?: BackgroundVerifySettings;
}

const PROJECT_SCOPE_LOCKED =
  "the project scope cannot be written in this session: the project had no .relm/ when its sandbox " +
  "started, so sandboxed code could write what relm would put there (and lead relm's writes elsewhere). " +
  'Use scope "session" or "user", or create .relm/ in the project and start a new session';

/**
 * The harness of a session tree, read once, and learning attached to it: its prompt block (frozen for
 * the whole session, so every request extends the previous one byte for byte), its sub-agent specs, the
 * kernels' `harness.*` calls, skill packages importable in every kernel, a sink that counts uses of its
 * entries, and the root's hooks (online refinement, verdicts, the host's refine and learn methods).
 */
export function sessionHarness(
  ctx: HarnessContext,
  env: NodeJS.ProcessEnv,
  sink: EventSink,
  settings: LearningSettings,
): SessionHarness {
  let loaded: ReturnType<typeof loadHarness>;
  try {
    loaded = loadHarness(ctx);
  } catch (error) {
    if (error instanceof HarnessLogError)
      throw new ConfigError(`${error.message}; fix the file or move it away`);
    throw error;
  }
  const { refineModel } = settings;
  const reload = (sessionDir: string) => loadHarness({ ...ctx, sessionDir }).block;
  return {
    hooks: {
      prompt: { block: loaded.block, reload },
      // Entries of kind agent are sub-agent specs: their first line describes them.
      specs: loaded.entries
        .filter((e) => e.kind === "agent")
        .map((e) => ({
          name: e.title,
          description: e.content.trim().split("\n")[0] ?? "",
          instructions: e.content.trim(),
          entryId: e.id,
          scope: e.scope,
        })),
      kernelCalls: {
        prefix: "harness.",
        handle: (agent, method, params) => handleHarnessRequest(agent, method, params, refineModel),
      },
      lockProject: (projectDir) => lockProjectScope(projectDir, PROJECT_SCOPE_LOCKED),
      root: (agent, events) => {
        // A new session says once which lessons it starts with on probation (a resume said it already).
        if (events.length === 0 && loaded.probation.length > 0)
          agent.record({ type: "harness_probation", entries: loaded.probation.map((e) => e.id) });
        return learningRootHooks(agent, events, { ...settings.learn, refineModel, verify: settings.verify });
      },
    },
    warnings: loaded.problems,
    env: withSkillPath(env, loaded.skillPaths),
    sink: trackHarnessUses(sink, loaded, ctx),
  };
}
