import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ApprovalSettings } from "../agent/approvals/broker.js";
import { checkLists } from "../agent/approvals/policy.js";
import type { BudgetLimits } from "../agent/budget/budget.js";
import type { Agent } from "../agent/core/agent.js";
import type { EventSink } from "../agent/core/events.js";
import { resumeAgent, startAgent } from "../agent/core/start.js";
import type { TreeOptions } from "../agent/core/tree.js";
import { parseVariableFlag, variableFlagWarnings } from "../agent/core/variables.js";
import { KernelCallError } from "../agent/kernel-api/errors.js";
import type { WebSettings } from "../agent/kernel-api/web.js";
import { isRemoteKernel } from "../agent/mode-choice.js";
import { parseApprove } from "../config/approvals.js";
import { type ResolvedConfig, relmHomeFrom, resolveConfig } from "../config/config.js";
import { UsageError } from "../config/errors.js";
import type { LearnSettings } from "../config/learn-config.js";
import { numberOf, type SessionSpec } from "../config/options.js";
import { type PermissionMode, sandboxed } from "../config/permission-mode.js";
import { untrustedNote } from "../config/project-trust.js";
import { relmVersion } from "../config/version.js";
import { SessionClient } from "../host/client.js";
import { projectSteering, untrusted } from "../host/project-trust.js";
import { rememberFlags, withRememberedFlags } from "../host/session-flags.js";
import { UsageTally } from "../host/states/tree-usage.js";
import { sessionHarness } from "../learning/attach/harness-setup.js";
import { checkPricedForMaxCost, createModelClient } from "../llm/index.js";
import type { ClientOptions } from "../llm/types.js";
import { loadMcpConfig } from "../mcp/index.js";
import { editorMcpFile, resolveSessionId, sessionDir, sessionsDir } from "../session/index.js";
import { parseAllowWeb } from "../web/policy.js";
import { buildClient } from "./client.js";
import { kernelUriOf } from "./doctor/kernel.js";
import { limitsOf } from "./host-args.js";
import { sessionMode } from "./option-checks.js";
import { sessionSecrets } from "./session-secrets.js";
import { followSubscriptionSecrets, subscriptionNotes } from "./subscription-session.js";

export interface CliIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** What fetch()/search() may reach (src/web/policy.ts): config.json's allowWeb and --allow-web together. */
function webSettings(flags: SessionSpec, config: ResolvedConfig): WebSettings {
  const listed = [
    ...parseAllowWeb(config.allowWeb ?? [], "allowWeb"),
    ...parseAllowWeb(flags.allowWeb ?? []),
  ];
  return { allow: listed.length > 0 ? listed : undefined, search: config.search };
}

/** For the demo: an explicit endpoint instead of the configured one. */
export interface SessionOverrides {
  clientOptions?: ClientOptions;
  config?: ResolvedConfig;
}

export interface PreparedSession {
  session: Agent;
  config: ResolvedConfig;
}

interface PreparedTree {
  config: ResolvedConfig;
  limits: BudgetLimits;
  tree: TreeOptions;
  /** Said at the session's start (journaled, so a detached session's log has them too). */
  warnings: string[];
}

/**
 * A sandboxed mode for a session whose kernels the user sends elsewhere (ssh, cmd:, Slurm, a container):
 * they run as that URI says, so the mode does not reach them; said, so that "plan" is not taken for a
 * promise about them.
 */
function unconfinedKernels(mode: PermissionMode, uri: string): string {
  return (
    `${mode} mode does not confine this session's kernels: they run through ${uri}, outside this machine's ` +
    "sandbox, with whatever rights they have there (the mode still confines gates, stdio MCP servers and " +
    'children started with kernel="local"); leave out --kernel (or config kernel) to confine them'
  );
}

/** Validates every flag before anything starts and builds what every agent of the tree shares. */
function prepareTree(
  flags: SessionSpec,
  io: CliIo,
  sink: EventSink,
  overrides: SessionOverrides,
  resumeId?: string,
): PreparedTree {
  const config = overrides.config ?? resolveConfig(io.env, flags);
  const limits = limitsOf(flags);
  const cellTimeoutMs =
    flags.cellTimeout === undefined
      ? config.cellTimeoutMs
      : (numberOf(flags, "cellTimeout") as number) * 1000;
  const client = overrides.clientOptions ? createModelClient(overrides.clientOptions) : buildClient(config);
  const maxDepth = numberOf(flags, "maxDepth") ?? 2;
  const target = kernelUriOf(flags.kernel, config);
  // `--kernel sandbox` is `--sandbox`: the tree's kernels (and the template children fork from) in it.
  // Kernels the user sends elsewhere (ssh, slurm, cmd:…) are not this machine's sandbox's to confine:
  // there the default stays full, as before modes existed.
  const mode = sessionMode({ ...flags, kernel: target }, config, io.env);
  checkPricedForMaxCost(limits.maxCost, config, client.price, client.model);
  // A new session's own scope is empty by definition; a resumed one brings its lessons back.
  const harness = sessionHarness(
    { cwd: io.cwd, home: config.home, sessionDir: resumeId ? sessionDir(config.home, resumeId) : undefined },
    config.python ? { ...io.env, RELM_PYTHON: config.python } : io.env,
    sink,
    {
      refineModel: config.refineModel,
      learn: { settings: learnSettings(config, flags), on: flags.learn === true },
      // Learning's background replay checks start their sessions here, as relm harness verify does.
      verify: { prepare: prepareSession, config, env: io.env },
    },
  );
  const env = harness.env;
  // Read now (no server starts before a call); a server's env and header values join the secrets.
  const mcpFiles = (flags.mcpConfig ?? []).map((file) => resolve(io.cwd, file));
  // Whichever way the session came back (an editor's load, a schedule, `relm send`), the servers its
  // editor gave last are its own while their file exists (session/paths.ts EDITOR_MCP_FILE).
  const editorFile = resumeId ? editorMcpFile(config.home, resumeId) : undefined;
  if (editorFile && existsSync(editorFile) && !mcpFiles.includes(editorFile)) mcpFiles.push(editorFile);
  const mcp = loadMcpConfig(io.cwd, config.home, io.env, mcpFiles);
  // Project files that steer the host are used once the user trusts them (docs/security.md); a front
  // end that can ask has asked before this, so what is still untrusted is left out and said once.
  const steering = projectSteering(io.cwd, config.home, io.env, target);
  const waiting = untrusted(steering);
  const tree: TreeOptions = {
    client,
    home: config.home,
    cwd: io.cwd,
    kernel: {
      env,
      passEnv: flags.passEnv ?? [],
      cellTimeoutMs,
      outputCap: config.outputCap,
      snapshotCaps: config.snapshotCaps,
      cacheDir: join(config.home, "cache"),
      ...(target ? { target } : {}),
      permissions: { mode: mode.mode, level: mode.level, net: mode.net, warning: mode.warning },
    },
    // Every key and token relm holds, not only the active provider's (a cell may print auth.json).
    secrets: sessionSecrets({ env: io.env, config, mcpServers: mcp.servers }),
    relmVersion: relmVersion(),
    maxDepth,
    // Children may name another model on the same endpoint (rlm(..., model=...), specs, llm()).
    clientFor: (model) =>
      overrides.clientOptions
        ? createModelClient({ ...overrides.clientOptions, model })
        : buildClient(config, model),
    sink: harness.sink,
    hooks: harness.hooks,
    userHooks: { commands: [...config.hooks, ...steering.trustedHooks], env: io.env },
    sendToSession: (to, from, text, sandboxed) => sendToSession(config.home, to, from, text, sandboxed),
    compaction: config.compaction,
    mcp: { config: mcp, env: io.env },
    web: webSettings(flags, config),
    approvals: approvalSettings(flags, config),
  };
  followSubscriptionSecrets(config, tree.secrets);
  const warnings = [
    ...(mode.warning ? [mode.warning] : []),
    ...(sandboxed(mode.mode) && target && isRemoteKernel(target)
      ? [unconfinedKernels(mode.mode, target)]
      : []),
    ...harness.warnings,
    ...subscriptionNotes(config, limits),
    ...(waiting.length > 0 ? [untrustedNote(waiting)] : []),
  ];
  return { config, limits, tree, warnings };
}

/**
 * Who answers the kernels' requests for more (docs/sandbox.md, "Approvals"): --approve, else config.json's
 * `approve`, else a person ("ask"); the allow and deny lists from config.json.
 */
function approvalSettings(flags: SessionSpec, config: ResolvedConfig): ApprovalSettings {
  checkLists(config.approvals, config.configPath);
  const setting = flags.approve ? parseApprove(flags.approve, "--approve") : (config.approve ?? "ask");
  return { setting, lists: config.approvals };
}

/** config.json's learn section, --learn-verify-share replacing its verify_share. */
function learnSettings(config: ResolvedConfig, flags: SessionSpec): LearnSettings {
  const share = numberOf(flags, "learnVerifyShare");
  return share === undefined ? config.learn : { ...config.learn, verifyShare: share };
}

/**
 * `send(session_id, text)` from Python: to another session's host, stamped with the sender. From a
 * sandboxed session only to sandboxed ones: a message is data to its reader's model, but a model that
 * was prompt-injected inside the sandbox must not get to steer one whose kernels run unconfined.
 */
async function sendToSession(
  home: string,
  to: string,
  from: string,
  text: string,
  sandboxed: boolean,
): Promise<void> {
  let id: string;
  try {
    id = resolveSessionId(sessionsDir(home), to);
  } catch {
    throw new KernelCallError(`send(): no child, parent or session called "${to}"`, "not_found");
  }
  const client = await SessionClient.connect(home, id);
  if (!client) throw new KernelCallError(`send(): session ${id} is not running`, "usage");
  try {
    if (sandboxed && (await client.call("info")).sandboxed !== true) {
      throw new KernelCallError(
        `send(): session ${id} runs without a sandbox, and this session runs in one: its messages go only ` +
          "to its own parent and children and to other sandboxed sessions (ask the user to pass it on)",
        "sandbox",
      );
    }
    await client.call("message", { from, text });
  } catch (error) {
    if (error instanceof KernelCallError) throw error;
    throw new KernelCallError(`send(): ${(error as Error).message}`, "usage");
  } finally {
    client.close();
  }
}

/** A new session, its kernel booting while the caller sends the first request. */
export async function prepareSession(
  title: string,
  flags: SessionSpec,
  io: CliIo,
  sink: EventSink,
  overrides: SessionOverrides = {},
  id?: string,
): Promise<PreparedSession> {
  const variables = (flags.var ?? []).map((v) => parseVariableFlag(v, io.cwd));
  const { config, limits, tree, warnings } = prepareTree(flags, io, sink, overrides);
  // The kernel reads --var files itself: in a sandbox they must be visible wherever they are.
  const files = variables.flatMap((v) => ("file" in v.source ? [v.source.file] : []));
  if (tree.kernel.permissions && files.length > 0)
    tree.kernel.permissions = { ...tree.kernel.permissions, readable: files };
  const session = await startAgent({ ...tree, id, title, variables, limits });
  for (const message of [...warnings, ...variableFlagWarnings(flags.var ?? [])])
    session.record({ type: "warning", message });
  // Every later host of the session (a send, a schedule, an idle session's stub) starts with these.
  rememberFlags(config.home, session.id, flags, io.cwd);
  return { session, config };
}

/** An existing session, continued from its journal (relm run --resume). */
export async function resumeSession<F extends SessionSpec>(
  id: string,
  flags: F,
  io: CliIo,
  sink: EventSink,
  overrides: SessionOverrides = {},
): Promise<PreparedSession & { flags: F }> {
  if ((flags.var ?? []).length > 0)
    throw new UsageError("--var cannot be used with --resume: the kernel's variables are restored");
  const home = overrides.config?.home ?? relmHomeFrom(io.env);
  const full = resolveSessionId(sessionsDir(home), id);
  // The session runs as it was started (a host started again by send, attach, a schedule or a stub is
  // given no flags); a flag given now replaces its remembered value. The caller runs with `flags` returned.
  const merged = withRememberedFlags(home, full, flags);
  const { config, limits, tree, warnings } = prepareTree(merged, io, sink, overrides, full);
  // Budgets are hard across resumes and revivals: what the tree spent before counts (docs/budgets.md).
  const before = UsageTally.ofTree(sessionDir(config.home, full));
  const spentBefore = { turns: before.rootCalls, tokens: before.totals().tokens, cost: before.cost };
  const { agent: session } = await resumeAgent({ ...tree, id: full, limits, spentBefore });
  for (const message of warnings) session.record({ type: "warning", message });
  rememberFlags(config.home, full, merged, io.cwd);
  return { session, config, flags: merged };
}
