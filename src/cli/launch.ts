import { resolveConfig } from "../config/config.js";
import { UsageError } from "../config/errors.js";
import type { SessionSpec } from "../config/options.js";
import { inheritedSpec } from "../config/session-spec.js";
import { isLive } from "../host/client.js";
import { SessionBusyError } from "../host/server.js";
import { spawnHost } from "../host/spawn.js";
import { newSessionId, resolveSessionId, sessionsDir } from "../session/index.js";
import { buildClient } from "./client.js";
import { EXIT } from "./exit-codes.js";
import type { RunIo } from "./run.js";

/**
 * `relm run --detach`: checks what can be checked here (so mistakes show in this terminal), starts the
 * session's host in its own session (it survives this terminal closing), waits until it accepts
 * connections, prints the id and returns.
 */
export async function launchDetached(
  task: string | undefined,
  flags: SessionSpec,
  io: RunIo,
): Promise<number> {
  const config = resolveConfig(io.env, flags);
  buildClient(config);
  // Mistakes in the session's flags are shown here, not in the host's log.
  const { checkSessionSpec } = await import("./option-checks.js");
  checkSessionSpec(flags, io, config);
  // A prefix names the session here: the host's socket and lock are under the full id.
  const id = flags.resume ? resolveSessionId(sessionsDir(config.home), flags.resume) : newSessionId();
  // Said before anything starts; one started at the same moment is refused by spawnHost, alike.
  if (flags.resume && (await isLive(config.home, id))) throw new SessionBusyError(id);
  if (!flags.resume && !task && !flags.interactive)
    throw new UsageError('no task given: relm run --detach "what to do"');
  const spec = inheritedSpec(flags, io.cwd);
  // `relm run --resume` continues unfinished work; a host revived for a message waits for it.
  if (flags.resume && !task) spec.continueWork = true;
  await spawnHost(
    config.home,
    id,
    { resume: Boolean(flags.resume), spec, task: task || undefined },
    io.env,
    io.cwd,
  );
  io.stdout.write(`${id}\n`);
  io.stderr.write(
    `running in the background: relm attach ${id}, relm logs ${id} --follow, relm stop ${id}\n`,
  );
  return EXIT.done;
}
