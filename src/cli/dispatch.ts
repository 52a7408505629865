import { relmHomeFrom } from "../config/config.js";
import { keepKeysPrivate } from "../host/private-keys.js";
import { EXIT } from "./exit-codes.js";
import { commandNames } from "./parse-errors.js";
import { buildProgram } from "./program.js";
import { reportError } from "./report-error.js";
import { refuseTypo } from "./suggest.js";

/** `relm -p TASK` is the short form of `relm run TASK`. */
function normaliseArgv(argv: string[]): string[] {
  if (argv[0] === "-p" || argv[0] === "--print") return ["run", ...argv.slice(1)];
  return argv;
}

export async function main(argv: string[]): Promise<number> {
  // Before anything reads a key or starts a process: keys out of this process's /proc/PID/environ.
  keepKeysPrivate();
  let code: number = EXIT.done;
  const program = buildProgram(
    { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() },
    (c) => {
      code = c;
    },
  );
  try {
    // `relm agnets --json`: commander would complain about the option before the action sees the word.
    const [first, ...rest] = argv;
    if (first && !first.startsWith("-") && rest.every((a) => a.startsWith("-"))) {
      const names = commandNames(program);
      if (!names.includes(first)) refuseTypo([first], names);
    }
    await program.parseAsync(normaliseArgv(argv), { from: "user" });
  } catch (error) {
    return reportError(error, process.stderr, relmHomeFrom(process.env));
  }
  return code;
}
