// The permission mode of one agent tree (docs/sandbox.md, "Permission modes"), as one object every part
// that must respect it consults: the kernels' sandbox (tree.ts), the kernel URIs code may choose
// (kernel-target.ts), fetch()'s policy (web-api.ts), the status line (host/info.ts) — and the place
// where later work (approvals: asking the person for one more host, one command outside) decides what
// needs asking: `allows()` answers from the mode alone.
import { sandboxed as modeIsSandboxed, narrower, type PermissionMode } from "../config/permission-mode.js";
import { settingsForMode } from "../kernel/sandbox/policy.js";
import type { NetPolicy, NetRule, SandboxMode, SandboxSettings } from "../kernel/sandbox/types.js";
import { netAllowed } from "./approvals/policy.js";

/** What the tree starts with: its mode, and what a sandboxed mode is made of (whichever runs now). */
export interface ModeSettings {
  mode: PermissionMode;
  /** workspace, or strict ($HOME hidden too). */
  level: SandboxMode;
  net: NetPolicy;
  /** Files kernels must read wherever they are (the session's `--var NAME=@FILE` files). */
  readable?: string[];
  /** Why the mode is full though the person asked for none (the default where bubblewrap does not work). */
  warning?: string;
}

/** What an action would need, for the approval layer: allowed by the mode as it is, or not. */
type PermissionAsk =
  | { kind: "write"; inProject: boolean }
  | { kind: "net"; host: string; port?: number }
  | { kind: "run-outside" };

export class Permissions {
  private current: PermissionMode;
  private note: string | undefined;
  private readonly listeners = new Set<(mode: PermissionMode) => void>();

  constructor(private readonly settings: ModeSettings) {
    this.current = settings.mode;
    this.note = settings.warning;
  }

  /** The root's mode now (a person can switch it: /mode, shift+tab). */
  get mode(): PermissionMode {
    return this.current;
  }

  /** Whether the root's mode confines the kernels. */
  get sandboxed(): boolean {
    return modeIsSandboxed(this.current);
  }

  /** Why the session runs in full mode without being asked to, until a person chooses a mode. */
  get warning(): string | undefined {
    return this.note;
  }

  /** The sandbox of `mode` (undefined for full): the same level and network for plan and workspace. */
  sandboxFor(mode: PermissionMode): SandboxSettings | undefined {
    return settingsForMode(mode, this.settings.level, this.settings.net, this.settings.readable);
  }

  /** A sub-agent's mode: what it asks for, but never wider than its parent's. */
  narrow(asked: PermissionMode | undefined, parent: PermissionMode): PermissionMode {
    return asked ? narrower(asked, parent) : parent;
  }

  /** Makes `mode` the root's (the tree restarts its kernels under it: tree.ts switchMode). */
  set(mode: PermissionMode): void {
    this.current = mode;
    this.note = undefined;
    for (const listener of this.listeners) listener(mode);
  }

  /** Called after each change of the root's mode. Returns the function that stops it. */
  onChange(listener: (mode: PermissionMode) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Adds `rule` to the allow-list of the sandbox's network proxy, live (the kernels keep running: the
   * proxy reads the list at each connection). False when the sandbox has no proxy to extend (it was
   * started with no network at all: `--approve never`).
   */
  grantNet(rule: NetRule): boolean {
    const net = this.settings.net;
    if (net.kind === "all") return true;
    if (net.kind === "none") return false;
    if (!net.rules.some((r) => r.host === rule.host && r.port === rule.port)) net.rules.push(rule);
    return true;
  }

  /**
   * Whether `mode` already allows `ask` without asking anyone. The seam approvals build on: what is
   * not allowed here is what a person would be asked about (or refused by policy).
   */
  allows(ask: PermissionAsk, mode: PermissionMode = this.current): boolean {
    if (mode === "full") return true;
    switch (ask.kind) {
      case "write":
        return mode === "workspace" && ask.inProject;
      case "net": {
        const net = this.settings.net;
        if (net.kind === "all") return true;
        if (net.kind === "none") return false;
        return netAllowed(net.rules, ask.host, ask.port);
      }
      case "run-outside":
        return false;
    }
  }
}
