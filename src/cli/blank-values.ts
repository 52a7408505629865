// An option given an empty value (`--gate "$CHECK"` with CHECK unset) is a mistake, never the option
// left out: commands read "" as "not given" (`flags.resume || ...`), so `--resume ""` started a new
// session and `--gate ""` ran `sh -c ""`, a gate that always passes. Every option that takes a value,
// in every command, refuses a blank one here, where commander parses it.
import { type Command, InvalidArgumentError } from "commander";

const BLANK = "An empty value is not allowed: give one, or leave the option out";

/** Makes every option of `root` and its commands that takes a value refuse an empty or blank one. */
export function refuseBlankValues(root: Command): void {
  for (const option of root.options) {
    if (!option.required && !option.optional) continue;
    const parse = option.parseArg;
    option.argParser((value: string, previous: unknown) => {
      if (value.trim() === "") throw new InvalidArgumentError(BLANK);
      return parse ? parse(value, previous) : value;
    });
  }
  for (const command of root.commands) refuseBlankValues(command);
}
