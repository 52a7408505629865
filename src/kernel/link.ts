// How the host reaches one runner process, whichever way it was started.

export interface RunnerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How a runner ended, in words: "exit code 3", "killed by SIGKILL". */
export function describeExit(exit: { code: number | null; signal: string | null }): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  // A forked kernel whose template could not say how it ended.
  return exit.code === null ? "cause unknown" : `exit code ${exit.code}`;
}

/**
 * The channel to one runner: a spawned child's stdio, or the Unix socket of a kernel forked from the
 * warm template. RunnerProcess speaks the JSON-lines protocol over either and cannot tell them apart.
 */
export interface RunnerLink {
  /**
   * The process the host started or was told about, which is also its process group id: the runner,
   * or on Linux its keeper (python/relm/keeper.py), the runner's parent; the runner's own pid then
   * comes with its ready message.
   */
  readonly pid: number;
  /** Resolves once the runner is gone and its channel closed; its group has been killed by then. */
  readonly gone: Promise<RunnerExit>;
  /** Starts delivering the runner's protocol text and its own stderr (diagnostics). Called once. */
  listen(onProtocol: (text: string) => void, onDiagnostics: (text: string) => void): void;
  /** Writes protocol text; dropped once the runner is gone. */
  write(text: string): void;
  /**
   * In a sandbox with its own pid namespace: the host's pid of a pid the runner reports (its ready
   * message), undefined when that process is gone. Absent: the runner's pids are the host's.
   */
  hostPid?(inner: number): number | undefined;
  /** Signals `pid`'s group; absent: killGroup. A fresh fork has no group of its own for a moment. */
  kill?(signal: NodeJS.Signals): void;
}
