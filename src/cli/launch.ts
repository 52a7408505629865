import { resolveConfig } from "../config/config.js";
import { UsageError } from "../config/errors.js";
import { isLive } from "../host/client.js";
import { newSessionId, resolveSessionId, sessionsDir } from "../session/index.js";
import { buildClient } from "./client.js";
import { EXIT } from "./exit-codes.js";
import type { RunFlags, RunIo } from "./run.js";
import { sandboxArgs } from "../kernel/sandbox/policy.js";
import { spawnHost } from "./spawn-host.js";

/** The flags a detached host needs to run the session the same way. */
function passThrough(flags: RunFlags): string[] {
  const args: string[] = [];
  const single: [keyof RunFlags, string][] = [
    ["provider", "--provider"],
    ["baseUrl", "--base-url"],
    ["model", "--model"],
    ["thinking", "--thinking"],
    ["maxTurns", "--max-turns"],
    ["maxTokens", "--max-tokens"],
    ["maxTime", "--max-time"],
    ["maxCost", "--max-cost"],
    ["cellTimeout", "--cell-timeout"],
    ["maxDepth", "--max-depth"],
    ["idleTimeout", "--idle-timeout"],
    ["gateTimeout", "--gate-timeout"],
    ["maxGateFailures", "--max-gate-failures"],
    ["goal", "--goal"],
    ["kernel", "--kernel"],
  ];
  for (const [key, flag] of single) {
    const value = flags[key];
    if (typeof value === "string") args.push(flag, value);
  }
  for (const v of flags.var ?? []) args.push("--var", v);
  for (const name of flags.passEnv ?? []) args.push("--pass-env", name);
  for (const gate of flags.gate ?? []) args.push("--gate", gate);
  if (flags.autonomous) args.push("--autonomous");
  if (flags.unattended) args.push("--unattended");
  if (flags.interactive) args.push("--interactive");
  if (flags.learn) args.push("--learn");
  for (const hosts of flags.allowWeb ?? []) args.push("--allow-web", hosts);
  args.push(...sandboxArgs(flags));
  return args;
}

/**
 * `relm run --detach`: checks what can be checked here (so mistakes show in this terminal), starts the
 * session's host in its own session (it survives this terminal closing), waits until it accepts
 * connections, prints the id and returns.
 */
export async function launchDetached(task: string | undefined, flags: RunFlags, io: RunIo): Promise<number> {
  const config = resolveConfig(io.env, flags);
  buildClient(config);
  // Mistakes in the session's flags are shown here, not in the host's log.
  const { checkSessionFlags } = await import("./setup.js");
  checkSessionFlags(flags, io.cwd);
  // A prefix names the session here: the host's socket and lock are under the full id.
  const id = flags.resume ? resolveSessionId(sessionsDir(config.home), flags.resume) : newSessionId();
  if (flags.resume && (await isLive(config.home, id))) {
    throw new UsageError(`session ${id} is already running; follow it with relm attach ${id}`);
  }
  if (!flags.resume && !task && !flags.interactive)
    throw new UsageError('no task given: relm run --detach "what to do"');
  const args = ["run", "--as-host", id, ...(flags.resume ? ["--resume", id] : []), ...passThrough(flags)];
  if (task) args.push("--", task);
  await spawnHost(config.home, id, args, io.env, io.cwd);
  io.stdout.write(`${id}\n`);
  io.stderr.write(
    `running in the background: relm attach ${id}, relm logs ${id} --follow, relm stop ${id}\n`,
  );
  return EXIT.done;
}
