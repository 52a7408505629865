// What a granted request does (docs/sandbox.md, "Approvals"), done by the host, outside the sandbox:
// one shell command run in the project with the kernels' environment (no API keys), its output
// returned; one file written. A network grant is the proxy's list (permissions.ts grantNet), a mode
// grant the session's switch after the cell (broker.ts).
import { lstatSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { makeDirs } from "../../config/dirs.js";
import { writeNoFollow } from "../../kernel/sandbox/no-follow.js";
import { runGate } from "../gates/gates.js";

/** A command run for a request ends after this long (its process group is killed). */
const RUN_TIMEOUT_MS = 10 * 60_000;

interface RunOutcome {
  exit_code: number | null;
  output: string;
  timed_out: boolean;
}

/**
 * Runs `cmd` with /bin/sh in `cwd` as a gate runs (gates/gates.ts): stdout and stderr interleaved,
 * capped to `cap` chars (head and tail), done when the shell exits (what it left running is ended).
 */
export async function runOutside(
  cmd: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  cap: number,
): Promise<RunOutcome> {
  const ran = await runGate(cmd, { cwd, env, timeoutMs: RUN_TIMEOUT_MS, outputCap: cap });
  const output = ran.error === undefined ? ran.output : `${ran.output}${ran.output ? "\n" : ""}${ran.error}`;
  return { exit_code: ran.exitCode, output, timed_out: ran.timedOut };
}

/**
 * Writes `content` to `file`, the real path the person (or the policy) approved (policy.ts realTarget),
 * its folders made as needed. Parts of that path may lie in the project, which a kernel can change while
 * the request waits: a link put at the name since is replaced, never written through (writeNoFollow), and
 * a folder on the way that no longer is where it was (swapped for a link) refuses the write.
 */
export function writeOutside(file: string, content: string): void {
  const folder = dirname(file);
  makeDirs(folder);
  if (realpathSync(folder) !== folder)
    throw new Error(
      `${folder} changed since the write was approved (it now leads to ${realpathSync(folder)})`,
    );
  writeNoFollow(file, content, modeFor(file));
}

/** An existing file keeps its permissions; a new one gets the usual 0644. */
function modeFor(file: string): number {
  try {
    const stat = lstatSync(file);
    if (stat.isFile()) return stat.mode & 0o7777;
  } catch {
    // a new file
  }
  return 0o644;
}
