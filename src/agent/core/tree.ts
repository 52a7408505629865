import { existsSync } from "node:fs";
import { join } from "node:path";
import { emptyLists } from "../../config/approvals.js";
import type { PermissionMode } from "../../config/permission-mode.js";
import { KERNEL_MARKER, startKernelTemplate } from "../../kernel/index.js";
import type { KernelTemplate, PythonInfo } from "../../kernel/types.js";
import type { ModelClient } from "../../llm/types.js";
import { McpClients } from "../../mcp/index.js";
import { Approvals } from "../approvals/broker.js";
import { type AgentSpec, listSpecs, loadSpec, specsDir } from "../children/specs.js";
import type { GateOptions } from "../gates/gates.js";
import type { KernelPolicy } from "../kernel-api/kernel-target.js";
import { renderMcpBlock } from "../kernel-api/mcp-prompt.js";
import { renderToolkitBlock } from "../kernel-api/toolkit-prompt.js";
import { LessonBoard } from "../lessons.js";
import { Permissions } from "../permissions.js";
import { UserHooks } from "../user-hooks/hooks.js";
import type { EventSink } from "./events.js";
import { findAgentsMd } from "./prompt.js";
import {
  confinedGates,
  createdByTheSandbox,
  gateEnvironment,
  openTreeSandbox,
  type SandboxLauncher,
} from "./sandbox.js";
import type { TreeOptions } from "./tree-options.js";

export type { TreeOptions } from "./tree-options.js";

/**
 * What every agent of one tree shares: the endpoint, the interpreter, the project's instructions and
 * specs, and the event stream the front end reads. Each agent has its own kernel, journal and budget.
 */
export class AgentTree {
  readonly maxDepth: number;
  readonly agentsMd: { path: string; text: string } | undefined;
  private readonly clients = new Map<string, ModelClient>();
  private specsCache: AgentSpec[] | undefined;
  private template: Promise<KernelTemplate | undefined> | undefined;
  /** The model agents get when none is named: the root's, as last switched (`/model`). */
  private defaultClient: ModelClient;
  /**
   * The hooks' prompt section new agents' prompts carry: the one rendered at the start of the tree,
   * renewed when the root's compaction reloads it (so children started after it see refined entries).
   */
  promptSection: string | undefined;
  /** The toolkit's listing in every agent's system prompt, rendered once (src/agent/kernel-api/toolkit-prompt.ts). */
  readonly toolkitBlock = renderToolkitBlock();
  /**
   * The session's gate commands while it runs autonomously (set by its host), for `run_tests()` in any
   * agent's kernel to run when the project names no test command of its own.
   */
  gates: readonly string[] = [];
  /**
   * The running agents of the tree, each with its inbox of lessons (lessons.ts): a lesson a plugin
   * applied just now is taught to all of them, appended before their next model request (agents
   * started later read it in their system prompt).
   */
  readonly lessons = new LessonBoard();
  /** The MCP servers every agent of the tree shares; undefined when none is configured. */
  readonly mcp: McpClients | undefined;
  /** Their listing in every agent's system prompt, rendered once (src/agent/kernel-api/mcp-prompt.ts). */
  readonly mcpBlock: string | undefined;

  /** The permission mode: the root's now, and the sandbox of each mode (permissions.ts). */
  readonly permissions: Permissions;
  /** The kernels' requests for more than the mode allows, and their answers (approvals/broker.ts). */
  readonly approvals: Approvals;
  /** The user's hooks (docs/hooks.md); undefined when none is configured. */
  readonly userHooks: UserHooks | undefined;

  constructor(
    readonly options: TreeOptions,
    readonly python: PythonInfo,
  ) {
    const approvals = options.approvals ?? { setting: "never", lists: emptyLists() };
    this.approvals = new Approvals(approvals, options.home, options.cwd);
    const modeSettings = options.kernel.permissions ?? {
      mode: "full",
      level: "workspace",
      net: { kind: "none" },
    };
    // Where a person may grant a host later, a sandbox without network still gets the proxy, with
    // nothing on its list: a grant then extends the list live and the kernels keep their state.
    const net =
      modeSettings.net.kind === "none" && approvals.setting !== "never"
        ? { kind: "list" as const, rules: [] }
        : modeSettings.net;
    this.permissions = new Permissions({ ...modeSettings, net });
    this.maxDepth = options.maxDepth ?? 2;
    this.agentsMd = findAgentsMd(options.cwd);
    this.clients.set(options.client.model, options.client);
    this.defaultClient = options.client;
    this.promptSection = options.hooks?.prompt?.block;
    const hooks = options.userHooks;
    if (hooks && hooks.commands.length > 0)
      this.userHooks = new UserHooks({
        commands: hooks.commands,
        cwd: options.cwd,
        env: hooks.env,
        // Project hooks of a sandboxed mode run in its sandbox, as its gates do (the mode's now).
        confinement: async () => {
          const launcher = await this.kernelLauncher();
          return launcher && confinedGates(launcher, options.kernel);
        },
      });
    const mcp = options.mcp;
    if (mcp && mcp.config.servers.length > 0) {
      const marker = options.kernel.env[KERNEL_MARKER];
      this.mcp = new McpClients(mcp.config, {
        // Marked like the kernels: `relm doctor --fix` ends a server its gone session left behind, and a
        // server that connects to the session's socket is refused what a kernel is refused.
        env: marker ? { ...mcp.env, [KERNEL_MARKER]: marker } : mcp.env,
        cwd: options.cwd,
        cacheDir: options.kernel.cacheDir,
        clientVersion: options.relmVersion,
        home: options.home,
        // A sandboxed session's stdio servers run in its sandbox (src/mcp/trust.ts says which may not);
        // the mode's now: a switch stops them (switchMode), and the next call starts them in the new one.
        sandbox: async () => (await this.kernelLauncher())?.sandbox,
        // No one request outlasts a cell; calls from a cell stop earlier, when it is interrupted.
        requestTimeoutMs: Math.max(options.kernel.cellTimeoutMs, 60_000),
      });
      this.mcpBlock = renderMcpBlock(this.mcp.catalog());
    }
  }

  /** What a kernel URI chosen by code must respect: the sandbox of `mode` (the root's now) and the user's own URI. */
  kernelPolicy(mode: PermissionMode = this.permissions.mode): KernelPolicy {
    return { sandboxed: mode !== "full", userUri: this.options.kernel.target };
  }

  /** Makes `client` the model of agents that name none (the root switched to it). */
  setDefaultClient(client: ModelClient): void {
    this.defaultClient = client;
  }

  /** True when agents of this tree may use another model than the one they started with. */
  get canSwitchModels(): boolean {
    return this.options.clientFor !== undefined;
  }

  get sink(): EventSink {
    return this.options.sink ?? (() => {});
  }

  now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }

  /** The client for a model name; the root's current client when no name is given. */
  client(model?: string | null): ModelClient {
    if (!model) return this.defaultClient;
    let client = this.clients.get(model);
    if (!client) {
      if (!this.options.clientFor) return this.defaultClient;
      client = this.options.clientFor(model);
      this.clients.set(model, client);
    }
    return client;
  }

  /**
   * The warm template the tree's kernels are forked from (milliseconds instead of a cold start): the
   * root's kernel is its first fork, so it costs the interpreter start the root's kernel would have
   * cost, and the first child no longer waits for one. If it cannot start, kernels are spawned as
   * usual. It runs in the root's mode's sandbox: only kernels of that mode fork.
   */
  kernelTemplate(): Promise<KernelTemplate | undefined> {
    if (!this.template) {
      const start = new AbortController();
      this.templateStart = start;
      this.template = this.kernelLauncher()
        .then((wrapper) =>
          startKernelTemplate({
            python: this.python,
            env: this.options.kernel.env,
            wrapper,
            signal: start.signal,
          }),
        )
        .catch(() => undefined);
    }
    return this.template;
  }

  /** Gives up a template start still under way (it is killed); a started template is not touched. */
  private templateStart: AbortController | undefined;

  /** Stops the template (and what was forked from it); the next kernel starts it again. */
  private async closeTemplate(): Promise<void> {
    const pending = this.template;
    this.template = undefined;
    this.templateStart?.abort();
    this.templateStart = undefined;
    await (await pending)?.close();
  }

  /**
   * The root's kernel was released (an idle session): the template goes too unless a kernel forked from
   * it still runs, so an idle session holds no Python process.
   */
  async releaseTemplate(): Promise<void> {
    const template = await this.template;
    if (template && template.forkedAlive === 0) await this.closeTemplate();
  }

  /** One sandbox per mode in use, opened on first use; a mode switch closes them all (switchMode). */
  private readonly sandboxes = new Map<PermissionMode, Promise<SandboxLauncher | undefined>>();

  /**
   * The launcher the kernels of `mode` (the root's now, by default) start through: that mode's sandbox,
   * opened on first use (one for the root kernel and the template, so forked children share it);
   * undefined in full mode.
   */
  kernelLauncher(mode: PermissionMode = this.permissions.mode): Promise<SandboxLauncher | undefined> {
    let launcher = this.sandboxes.get(mode);
    if (!launcher) {
      launcher = openTreeSandbox(this.options, this.python, this.permissions.sandboxFor(mode));
      this.sandboxes.set(mode, launcher);
    }
    return launcher;
  }

  /**
   * Makes `mode` the root's: what runs under the old one is stopped (the warm template, the sandboxes,
   * the MCP servers: they start again under the new one at their next use). The caller has stopped the
   * kernels first (agent.ts switchMode: the root's is snapshotted and restored in the new sandbox).
   */
  async switchMode(mode: PermissionMode): Promise<void> {
    await Promise.all([this.closeTemplate(), this.mcp?.stopAll()]);
    await this.closeSandboxes();
    this.permissions.set(mode);
  }

  private async closeSandboxes(): Promise<void> {
    const open = [...this.sandboxes.values()];
    this.sandboxes.clear();
    for (const pending of open) {
      const launcher = await pending.catch(() => undefined);
      await launcher?.sandbox.close(); // after the kernels inside it
      launcher?.release();
    }
  }

  /** The environment a command approved to run outside the sandbox gets: the kernels' (no API keys). */
  commandEnv(): NodeJS.ProcessEnv {
    return gateEnvironment(this.options.kernel);
  }

  /**
   * Where and with what the session's gates run: in the tree's sandbox when it has one (opened now if
   * need be), and always with the kernels' environment (no keys).
   */
  async gateConfinement(): Promise<Pick<GateOptions, "env" | "wrap">> {
    const launcher = await this.kernelLauncher();
    return launcher
      ? confinedGates(launcher, this.options.kernel)
      : { env: gateEnvironment(this.options.kernel) };
  }

  private readonly createdTold = new Set<string>();

  /**
   * Warnings, each once, about files the host reads that appeared (writable inside) since the sandbox
   * opened (they could not be made read-only in it): none before the sandbox is open.
   */
  async sandboxCreated(): Promise<string[]> {
    const out: string[] = [];
    for (const pending of this.sandboxes.values()) {
      const launcher = await pending.catch(() => undefined);
      if (launcher) out.push(...createdByTheSandbox(launcher.sandbox, this.createdTold));
    }
    return out;
  }

  /** Stops what the tree shares (the template and any kernel still forked from it, the MCP servers). */
  async close(): Promise<void> {
    await Promise.all([this.closeTemplate(), this.mcp?.close()]);
    await this.closeSandboxes();
  }

  /** A spec by name: the project's `.relm/agents/NAME.yaml`, else one the hooks keep (a harness entry). */
  spec(name: string): AgentSpec {
    const kept = this.options.hooks?.specs?.find((s) => s.name === name);
    const dir = specsDir(this.options.cwd);
    const hasFile = ["yaml", "yml"].some((ext) => existsSync(join(dir, `${name}.${ext}`)));
    if (!kept || hasFile) return loadSpec(this.options.cwd, name);
    return {
      name,
      path: `harness entry ${kept.entryId} (${kept.scope} scope)`,
      description: kept.description,
      instructions: kept.instructions,
      limits: {},
    };
  }

  /** The project's usable sub-agent specs, read once per tree. */
  specs(): AgentSpec[] {
    this.specsCache ??= listSpecs(this.options.cwd);
    return this.specsCache;
  }
}
