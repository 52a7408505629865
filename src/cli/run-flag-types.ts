// What `relm run` is given: apart from run.ts, which runs it, so that the checks of its flags
// (run-flags.ts), which run.ts uses, can name it without importing run.ts.
import type { SessionFlags } from "./setup.js";

export interface RunFlags extends SessionFlags {
  json?: boolean;
  detach?: boolean;
  resume?: string;
  /** Internal: this process is the detached host of session ID (see launch.ts). */
  asHost?: string;
  idleTimeout?: string;
  gate?: string[];
  gateTimeout?: string;
  maxGateFailures?: string;
  autonomous?: boolean;
  goal?: string;
  unattended?: boolean;
  /** Internal: the host was started by the terminal UI (a person is there; autonomy is attended). */
  interactive?: boolean;
  /** The terminal UI that starts this host attaches a moment later: its first turn waits for it. */
  awaitClient?: boolean;
}
