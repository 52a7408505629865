import { EXIT } from "./exit-codes.js";
import { buildProgram, reportError } from "./program.js";

/** `relm -p TASK` is the short form of `relm run TASK`. */
function normaliseArgv(argv: string[]): string[] {
  if (argv[0] === "-p" || argv[0] === "--print") return ["run", ...argv.slice(1)];
  return argv;
}

export async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.done;
  const program = buildProgram(
    { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() },
    (c) => {
      code = c;
    },
  );
  try {
    await program.parseAsync(normaliseArgv(argv), { from: "user" });
  } catch (error) {
    return reportError(error, process.stderr);
  }
  return code;
}
