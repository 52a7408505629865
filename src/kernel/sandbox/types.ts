// The kernel sandbox (issue 12, item 2): what it is asked for and what it gives the spawn sites.
// See docs/sandbox.md for what is isolated and what is not.

/** `workspace`: read-only system, writable project; `strict`: also $HOME hidden. */
export type SandboxMode = "workspace" | "strict";

/** Where the sandboxed kernel may connect: nowhere, anywhere, or the listed HOST[:PORT] only. */
export type NetPolicy = { kind: "none" } | { kind: "all" } | { kind: "list"; rules: NetRule[] };

/** One `--allow-net HOST[:PORT]` entry; `host` may start with `*.` (any subdomain). No port: any port. */
export interface NetRule {
  host: string;
  port?: number;
}

export interface SandboxSettings {
  mode: SandboxMode;
  net: NetPolicy;
  /**
   * Permission mode `plan`: the project is read-only too (the session's own folders stay writable: the
   * snapshot of the variables, outputs, the children's hand-overs).
   */
  readOnlyProject?: boolean;
  /**
   * Files the kernels must read wherever they are (the session's `--var NAME=@FILE` files, which may
   * sit in the hidden /tmp): shown read-only at their own path.
   */
  readable?: string[];
}

/** The paths a sandbox exposes or hides, beyond the read-only system. */
export interface SandboxPaths {
  /** The project directory: writable, and the kernel's working directory. */
  project: string;
  /** Writable too: the session's outputs, snapshot and children directories (created if missing). */
  writable: string[];
  /** Made invisible (an empty tmpfs over each): RELM_HOME, the fork sockets' directory. */
  hidden: string[];
  /** Shown read-only again inside hidden ones: relm's Python package, the interpreter, skills. */
  readable: string[];
  /** The user's home ($HOME): hidden in strict mode. */
  home?: string;
  /**
   * Inside the project, read-only: what the host reads and obeys (.git, .relm, .mcp.json) as it was when
   * the sandbox opened, and the directories pinned so they cannot be moved aside (protect.ts).
   */
  readOnly: string[];
  pinned: string[];
  /** Of those names, the ones that did not exist (absolute paths): created inside, they are writable. */
  unprotected: string[];
}

/** A process to spawn: the local one, or the same wrapped in the sandbox. */
export interface SpawnCommand {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * A sandbox ready to wrap kernel processes (runners and the warm template). One per session tree:
 * the template and the root kernel share it, so forked children inherit the same confinement.
 */
export interface KernelSandbox {
  readonly settings: SandboxSettings;
  /** e.g. "bubblewrap 0.8.0" or "sandbox-exec"; for the journal and `relm doctor`. */
  readonly engine: string;
  /**
   * Files the host reads (.git, .relm, .mcp.json) that did not exist when the sandbox opened, so could
   * not be made read-only inside (absolute paths); the host must not trust them if they appear.
   */
  readonly unprotected: readonly string[];
  /**
   * The command that runs `command` inside the sandbox; `sockets` are Unix sockets bound in (rw).
   * `relmProcess`: it is relm's kernel runner or warm template (it starts the network forwarder itself).
   */
  wrap(command: SpawnCommand, sockets?: string[], relmProcess?: boolean): SpawnCommand;
  /** The environment a process inside sees (TMPDIR, proxy settings), for kernels forked inside. */
  env(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /**
   * The host's pid of process `inner` (a pid inside the sandbox's pid namespace) below `outer`, the
   * process the host spawned; undefined when it is gone. Identity where there is no pid namespace.
   */
  hostPid(outer: number, inner: number): number | undefined;
  /** Stops what the sandbox runs on the host (the network proxy). Idempotent. */
  close(): Promise<void>;
}

/**
 * What the spawn sites need of a wrapper around the local command (the `sandbox` kernel launcher is
 * one; a kernel launcher of src/kernel/launchers/ fits it too): the command that runs `inner`, and for
 * a pid namespace, the way back to host pids. Kept structural so the template and fork links need not
 * know the launchers.
 */
export interface ProcessWrapper {
  command(
    ctx: { cwd: string; inner: string[]; env: NodeJS.ProcessEnv },
    sockets?: string[],
  ): { file: string; args: string[]; env?: NodeJS.ProcessEnv; cwd?: string };
  /** See KernelSandbox.hostPid. */
  hostPid?(outer: number, inner: number): number | undefined;
  /** The environment of a kernel forked inside (from a template this wrapper started). */
  forkEnv?(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}
