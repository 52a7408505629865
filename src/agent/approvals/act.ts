// What a granted request does (docs/sandbox.md, "Approvals"), done by the host, outside the sandbox:
// one shell command run in the project with the kernels' environment (no API keys), its output
// returned; one file written. A network grant is the proxy's list (permissions.ts grantNet), a mode
// grant the session's switch after the cell (broker.ts).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { makeDirs } from "../../config/dirs.js";
import { killGroup } from "../../kernel/host-exit.js";

/** A command run for a request ends after this long (its process group is killed). */
const RUN_TIMEOUT_MS = 10 * 60_000;

interface RunOutcome {
  exit_code: number | null;
  output: string;
  timed_out: boolean;
}

/** Runs `cmd` with /bin/sh in `cwd`: stdout and stderr interleaved, capped to `cap` chars (head and tail). */
export function runOutside(
  cmd: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  cap: number,
): Promise<RunOutcome> {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", cmd], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) killGroup(child.pid, "SIGKILL");
    }, RUN_TIMEOUT_MS);
    const done = (code: number | null, error?: Error) => {
      clearTimeout(timer);
      let output = Buffer.concat(chunks, size).toString("utf8");
      if (error) output += `${output ? "\n" : ""}${error.message}`;
      if (output.length > cap) {
        const half = Math.floor(cap / 2);
        output = `${output.slice(0, half)}\n[... ${output.length - cap} chars cut ...]\n${output.slice(-half)}`;
      }
      resolve({ exit_code: code, output, timed_out: timedOut });
    };
    child.once("error", (error) => done(null, error));
    child.once("close", (code) => done(code));
  });
}

/** Writes `content` to `file` (its folders made as needed). */
export function writeOutside(file: string, content: string): void {
  makeDirs(dirname(file));
  writeFileSync(file, content);
}
