// The runner's wire protocol: one JSON object per line on the runner's stdin/stdout.
import type { RunnerSnapshot } from "./snapshot-secrets.js";
import type { RestoreReport, VariableSummary } from "./types.js";

export type HostMessage =
  | { type: "execute"; id: number; code: string; cap: number; gate?: string; tree?: string }
  | { type: "set_var"; id: number; name: string; text: string }
  | { type: "set_var"; id: number; name: string; file: string }
  | { type: "set_var"; id: number; name: string; pickle: string }
  | { type: "variables"; id: number }
  | {
      type: "snapshot";
      id: number;
      dir: string;
      max_var_bytes?: number;
      max_total_bytes?: number;
      max_large_bytes?: number;
      final?: boolean;
    }
  | { type: "restore"; id: number; dir: string }
  | { type: "shutdown" }
  | { type: "interrupt" }
  | { type: "file_write"; id: number; path: string; data: string; append?: boolean }
  | { type: "file_read"; id: number; path: string; offset: number; length: number }
  | { type: "file_remove"; id: number; path: string }
  | { type: "response"; id: number; result: unknown }
  | { type: "response"; id: number; error: string | { message: string; code: string } };

export interface ReadyMessage {
  type: "ready";
  pid: number;
  python: string;
  ipython: string | null;
  /** A remote kernel's scratch directory over there (python/relm/remote.py); absent for local ones. */
  scratch?: string;
  /** The hash of the relm package it was sent (bootstrap.ts), remote kernels only. */
  build?: string;
  /** Skills whose `import NAME` gives another module (python/relm/skillpath.py), one line each. */
  unused_skills?: string[];
  /** Their folders, in the same order: which of the skills the host named they are. */
  unused_skill_dirs?: string[];
}

export interface ResultMessage {
  type: "result";
  id: number;
  count: number;
  status: "ok" | "error";
  output: string;
  chars: number;
  truncated?: boolean;
  /** Lines of the full output, when it was truncated. */
  lines?: number;
  path?: string;
  error?: { name: string; value: string };
  /** A `!command` of the cell exited with this non-zero status. */
  shell_exit?: number;
  images?: string[];
}

export type RunnerMessage =
  | ReadyMessage
  | { type: "stream"; id: number; text: string }
  | ResultMessage
  | { type: "var"; id: number; var?: VariableSummary; error?: string }
  | { type: "vars"; id: number; list?: VariableSummary[]; error?: string }
  | { type: "snapshot"; id: number; report?: RunnerSnapshot; error?: string }
  | { type: "restored"; id: number; report?: RestoreReport; error?: string }
  | { type: "request"; id: number; method: string; params: unknown }
  | { type: "file"; id: number; data?: string; size?: number; error?: string };

/** Messages that answer a host message with the same id. */
export type ReplyMessage = Extract<
  RunnerMessage,
  { type: "result" | "var" | "vars" | "snapshot" | "restored" | "file" }
>;
