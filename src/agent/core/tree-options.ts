// What an agent tree is made with (tree.ts): apart from the tree, so that the modules the tree is built
// from (sandbox.ts) can name it without importing the tree.
import type { SnapshotCaps } from "../../config/config.js";
import type { HookCommand } from "../../config/hooks.js";
import type { ModelClient } from "../../llm/types.js";
import type { McpConfig } from "../../mcp/index.js";
import type { ApprovalSettings } from "../approvals/broker.js";
import type { CompactionSettings } from "../compaction/compact-agent.js";
import type { TreeHooks } from "../hooks.js";
import type { WebSettings } from "../kernel-api/web.js";
import type { ModeSettings } from "../permissions.js";
import type { EventSink } from "./events.js";

export interface KernelSettings {
  /** Environment the kernels are started from; it is scrubbed of secrets first. */
  env: NodeJS.ProcessEnv;
  passEnv: string[];
  cellTimeoutMs: number;
  outputCap: number;
  /** The variable snapshots' caps (config.json's snapshotMax*MB). */
  snapshotCaps?: SnapshotCaps;
  /** Where interpreter discovery caches its result. */
  cacheDir: string;
  /** Where the root's kernel runs (and its children's, unless they say): a kernel URI (docs/launchers.md). */
  target?: string;
  /**
   * The permission mode the tree starts in and what its sandbox is made of (docs/sandbox.md): every
   * kernel of a sandboxed mode (and the template children fork from) runs in it. Absent: full.
   */
  permissions?: ModeSettings;
}

export interface TreeOptions {
  /** The root agent's model. */
  client: ModelClient;
  /** Another model on the same endpoint (rlm(..., model=...), specs, llm(..., model=...)). */
  clientFor?: (model: string) => ModelClient;
  home: string;
  cwd: string;
  kernel: KernelSettings;
  /** Exact values never to write to a journal or show a model (API keys). */
  secrets: string[];
  relmVersion: string;
  /** What a plugin attaches to the tree (src/agent/hooks.ts): the self-refining harness, src/learning/. */
  hooks?: TreeHooks;
  /**
   * The user's hooks (docs/hooks.md): config.json's, and the project's `.relm/hooks.json` once the user
   * trusted it; `env` is what the user's own run with (project hooks of a sandboxed session get the kernels').
   */
  userHooks?: { commands: readonly HookCommand[]; env: NodeJS.ProcessEnv };
  /**
   * The configured MCP servers (src/mcp/config.ts) and the environment their processes start from
   * (secret-looking names are removed; each server's own `env` is added). None starts before a call.
   */
  mcp?: { config: McpConfig; env: NodeJS.ProcessEnv };
  /** Who answers the kernels' requests for more (--approve, config.json approvals; docs/sandbox.md). */
  approvals?: ApprovalSettings;
  /** fetch()/search() in the kernels: which hosts they may reach and the search provider (kernel-api/web.ts). */
  web?: WebSettings;
  /** When and how conversations are compacted (context windows, threshold). */
  compaction?: CompactionSettings;
  /** Schedules of this session (set by its host; absent when nothing hosts the session). */
  scheduler?: {
    /** `say`: how an error quotes the timing (`/heartbeat 0s`); relm schedule's flags when not given. */
    add(
      timing: { every: string } | { at: string } | { cron: string },
      prompt: string,
      say?: (key: "every" | "at" | "cron", value: string) => string,
    ): unknown;
    list(): unknown;
    cancel(id: string): void;
  };
  /** Delivers a message to another session on this machine (the host layer knows how). */
  sendToSession?: (to: string, from: string, text: string, sandboxed: boolean) => Promise<void>;
  /** Depth of the deepest agent allowed; the root is depth 0. Default 2. */
  maxDepth?: number;
  sink?: EventSink;
  now?: () => Date;
}
