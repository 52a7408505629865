// What Python a kernel elsewhere would run, asked without starting a kernel: the launcher's own command
// line (the same ssh options, container flags or cmd: prefix a kernel starts with) with the interpreter
// probe of python.ts in place of the bootstrap. For `relm doctor`: whether that Python has IPython, so
// its cells take `!cmd` and `%magic` or run as plain Python. One ssh connection or one container run;
// launchers whose start is a scheduled job (Slurm, Kubernetes) are not asked this way.
import { execFile } from "node:child_process";
import type { Launcher } from "./launchers/types.js";
import { PYTHON_PROBE, probeAnswer } from "./python.js";
import type { PythonInfo } from "./types.js";

/** Runs the probe through `launcher`; throws an Error saying what went wrong (with stderr's tail). */
export function probeRemotePython(
  launcher: Launcher,
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<PythonInfo> {
  const python = launcher.python ?? "python3";
  const command = launcher.command({
    cwd: options.cwd,
    env: options.env,
    inner: [python, "-c", PYTHON_PROBE],
  });
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = execFile(
      command.file,
      command.args,
      {
        cwd: command.cwd ?? options.cwd,
        env: command.env ?? options.env,
        timeout: timeoutMs,
        maxBuffer: 1 << 16,
      },
      (error, stdout, stderr) => {
        const said = stderr.trim().split("\n").slice(-3).join(" ").trim();
        if (error) {
          const code = (error as { code?: unknown }).code;
          const how = error.killed
            ? `no answer within ${timeoutMs / 1000} s`
            : code === "ENOENT"
              ? `${command.file} is not installed`
              : `${command.file} exited with ${typeof code === "number" ? `code ${code}` : String(code ?? error.signal)}`;
          return reject(new Error(said ? `${how}: ${said}` : how));
        }
        const r = probeAnswer(stdout);
        if (!r) return reject(new Error(`${python} did not answer the probe${said ? `: ${said}` : ""}`));
        if (!r.ok) return reject(new Error(`${r.path} is Python ${r.version}; relm needs 3.10+`));
        resolve({ path: r.path, version: r.version, ipython: r.ipython });
      },
    );
    child.stdin?.end(); // the launcher's command may keep stdin open (-i); the probe reads none
  });
}
