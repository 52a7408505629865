// What the launchers that run the runner somewhere else (ssh, Slurm, a container, Kubernetes) share:
// the bootstrap over a pipe (so never forked here), and the interpreter and directory their URI names.
import type { LaunchCommand, LaunchContext, Launcher } from "./types.js";

/** The part of a remote launcher's parsed URI that the kernel layer reads. */
interface RemoteTarget {
  python: string;
  workdir?: string;
}

export abstract class RemoteLauncher<T extends RemoteTarget> implements Launcher {
  abstract readonly scheme: string;
  readonly transport = "remote";
  readonly forkable = false;

  constructor(
    readonly uri: string,
    readonly target: T,
  ) {}

  get python(): string {
    return this.target.python;
  }

  get workdir(): string | undefined {
    return this.target.workdir;
  }

  abstract command(ctx: LaunchContext): LaunchCommand;
}
