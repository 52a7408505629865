// Custom commands: a Markdown file NAME.md in `.relm/commands/` (the project's, then relm's home) becomes
// `/NAME`, whose text — with `$ARGUMENTS` and `$1`… filled in — is sent as the person's message. Claude
// Code's `.claude/commands/` and OpenCode's `.opencode/command(s)/` have the same layout and are read too.
//
// Project files are untrusted input: a command file only ever becomes prompt text. Nothing in it runs on
// the host (Claude Code's "!`cmd`" lines stay literal text), only regular files are read (a symlink to a
// secret elsewhere is skipped), and what the palette shows of it has its control characters removed.
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { projectRoot } from "../config/project-root.js";
import { findCommand, splitCommandLine } from "./table.js";
import type { SlashCommand } from "./types.js";
import { ArgumentSyntaxError, shellWords } from "./words.js";

/** A command file read: its entry in the table, and the text it expands to. */
interface CustomCommand extends SlashCommand {
  readonly template: string;
  /** Where it was read from (said when it is used, and in /help). */
  readonly file: string;
}

/** Larger files are not commands anyone wrote by hand; they are skipped rather than sent. */
const MAX_BYTES = 64 * 1024;
const NAME = /^[a-z0-9][a-z0-9_.-]*$/;

/** The folders read, first wins for a name: the project's (relm's, Claude Code's, OpenCode's), then the person's. */
export function commandFolders(cwd: string, relmHome: string, userHome = homedir()): string[] {
  const root = projectRoot(cwd);
  return [
    join(root, ".relm", "commands"),
    join(root, ".claude", "commands"),
    join(root, ".opencode", "command"),
    join(root, ".opencode", "commands"),
    join(relmHome, "commands"),
    join(userHome, ".claude", "commands"),
    join(userHome, ".config", "opencode", "command"),
    join(userHome, ".config", "opencode", "commands"),
  ];
}

/** Printable text only: a file's escape sequences must not reach the terminal through the palette. */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").trim();
}

/** Front matter (`---` … `---`) split from the body; only `description` and `argument-hint` are used. */
function frontMatter(text: string): { fields: Record<string, string>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!match) return { fields: {}, body: text };
  const fields: Record<string, string> = {};
  for (const line of (match[1] as string).split(/\r?\n/)) {
    const field = /^([A-Za-z_-]+):\s*(.*)$/.exec(line);
    if (field) fields[(field[1] as string).toLowerCase()] = (field[2] as string).replace(/^["']|["']$/g, "");
  }
  return { fields, body: text.slice(match[0].length) };
}

/** One file as a command, or undefined when it is not one (not a regular file, too large, empty). */
function readCommand(folder: string, entry: string): CustomCommand | undefined {
  if (!entry.endsWith(".md")) return undefined;
  const name = entry.slice(0, -3).toLowerCase();
  if (!NAME.test(name)) return undefined;
  const file = join(folder, entry);
  try {
    const stat = lstatSync(file);
    if (!stat.isFile() || stat.size > MAX_BYTES) return undefined;
    const { fields, body } = frontMatter(readFileSync(file, "utf8"));
    const template = body.trim();
    if (template === "") return undefined;
    const firstLine = template.split("\n").find((l) => l.trim() !== "") ?? "";
    const description = printable(fields.description || firstLine.replace(/^#+\s*/, "")).slice(0, 100);
    const hint = printable(fields["argument-hint"] ?? "");
    return { name, description, template, file, ...(hint ? { args: hint } : {}) };
  } catch {
    return undefined; // unreadable: not offered
  }
}

/** The command files of `folders`, the first of each name kept, sorted by name. */
export function loadCustomCommands(folders: readonly string[]): CustomCommand[] {
  const found = new Map<string, CustomCommand>();
  for (const folder of folders) {
    let entries: string[];
    try {
      entries = readdirSync(folder).sort();
    } catch {
      continue; // no such folder
    }
    for (const entry of entries) {
      const command = readCommand(folder, entry);
      if (command && !found.has(command.name)) found.set(command.name, command);
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** `commands` and the custom ones whose names they do not take (relm's own always win). */
export function withCustom(
  commands: readonly SlashCommand[],
  custom: readonly CustomCommand[],
): SlashCommand[] {
  return [...commands, ...custom.filter((c) => !findCommand(commands, c.name))];
}

/** The template with `$ARGUMENTS` and `$1`…`$9` filled in; arguments no placeholder takes are appended. */
export function expandTemplate(template: string, raw: string): string {
  let words: string[];
  try {
    words = shellWords(raw);
  } catch (error) {
    if (!(error instanceof ArgumentSyntaxError)) throw error;
    words = raw.split(/\s+/).filter((w) => w !== "");
  }
  const placeholders = /\$ARGUMENTS|\$[1-9]/.test(template);
  const text = template
    .replace(/\$ARGUMENTS/g, () => raw)
    .replace(/\$([1-9])/g, (_m, d: string) => words[Number(d) - 1] ?? "");
  return !placeholders && raw !== "" ? `${text}\n\n${raw}` : text;
}

/** The message a typed `/NAME args` becomes when NAME is a custom command among `commands`. */
export function expandCustomLine(
  commands: readonly SlashCommand[],
  line: string,
): { text: string; command: CustomCommand } | undefined {
  const split = splitCommandLine(line);
  if (!split) return undefined;
  const command = findCommand(commands, split.name);
  if (!command || !("template" in command)) return undefined;
  const custom = command as CustomCommand;
  return { text: expandTemplate(custom.template, split.rest), command: custom };
}
