// The commander options of every command that takes session options, made from the one table
// (config/options.ts): the same words, help and defaults wherever an option appears.
import { type Command, Option } from "commander";
import { OPTIONS, type OptionDef, type Section } from "../config/options.js";

/**
 * A repeatable option's values, in the order given. `previous` is undefined for the first value of an
 * option declared without a default: such an option stays undefined when not given, and its help shows
 * no "(default: [])" (e.g. `relm harness verify --gate`, whose default is the session's gates).
 */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the options of each of `sections` to `cmd`, section by section, each in the table's order. */
export function addOptions(cmd: Command, sections: readonly Section[]): Command {
  for (const section of sections)
    for (const def of OPTIONS as readonly OptionDef[])
      if (def.sections.includes(section)) cmd.addOption(commanderOption(def, cmd.name()));
  return cmd;
}

function commanderOption(def: OptionDef, command: string): Option {
  const help = typeof def.help === "string" ? def.help : (def.help[command] ?? def.help.run ?? "");
  const option = new Option(def.flags, help);
  if (def.preset !== undefined) option.preset(def.preset);
  if (def.kind === "list") option.argParser(collect).default([]);
  if (def.hidden) option.hideHelp();
  return option;
}
