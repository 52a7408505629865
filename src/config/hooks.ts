// Hooks as the user writes them (docs/hooks.md), in the shape Claude Code's settings use so its hooks
// carry over: event name → list of {matcher, hooks: [{type: "command", command, timeout}]}. Read from
// config.json's `hooks` (the user's own: trusted) and from the project's `.relm/hooks.json` (used only
// once the user approved its content: project-trust.ts). Parsing only; src/agent/user-hooks/ runs them.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { FileShapeError, PROJECT_FILE_BYTES, readBoundedText } from "./bounded-read.js";
import { ConfigError } from "./errors.js";
import { isRecord, parseEditedJson } from "./records.js";

/** The events a hook can run at; Claude Code's names where it has one (PreToolUse is before a cell). */
const HOOK_EVENTS = [
  "SessionStart",
  "SessionEnd",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PreCompact",
  "SubagentStart",
  "SubagentStop",
  "Stop",
  "Notification",
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Seconds a hook may run when its entry gives no `timeout` (Claude Code's default). */
const DEFAULT_TIMEOUT_S = 60;

/** One command to run at an event. */
export interface HookCommand {
  readonly event: HookEventName;
  /** A regular expression the event's subject must match (the tool name, the notification kind…); "" matches all. */
  readonly matcher: string;
  readonly command: string;
  readonly timeoutMs: number;
  /** "user": config.json (trusted, runs on the host); "project": .relm/hooks.json (in the sandbox when there is one). */
  readonly source: "user" | "project";
  /** The file it came from, for messages. */
  readonly file: string;
}

/** The project's hooks file. */
export function projectHooksFile(project: string): string {
  return join(project, ".relm", "hooks.json");
}

/**
 * The hook commands of one `hooks` object (`{"PreToolUse": [{"matcher": "ipython", "hooks": [...]}]}`);
 * every mistake is a ConfigError naming the file and the place in it.
 */
export function parseHooks(value: unknown, file: string, source: HookCommand["source"]): HookCommand[] {
  if (value === undefined) return [];
  const bad = (where: string, what: string) =>
    new ConfigError(`${file}: hooks${where} ${what} (docs/hooks.md shows the shape)`);
  if (!isRecord(value)) throw bad("", 'must be an object of event names, e.g. {"PreToolUse": [...]}');
  const out: HookCommand[] = [];
  for (const [event, groups] of Object.entries(value)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event))
      throw bad(`.${event}`, `is not an event relm runs hooks at; events: ${HOOK_EVENTS.join(", ")}`);
    if (!Array.isArray(groups)) throw bad(`.${event}`, 'must be a list of {"matcher": …, "hooks": [...]}');
    for (const [i, group] of groups.entries()) {
      const at = `.${event}[${i}]`;
      if (!isRecord(group)) throw bad(at, 'must be an object {"matcher": …, "hooks": [...]}');
      const given = group.matcher ?? "";
      if (typeof given !== "string") throw bad(`${at}.matcher`, "must be a string (a regular expression)");
      // Claude Code's "*" (every tool) is no regular expression: it means "", before the check.
      const matcher = given === "*" ? "" : given;
      try {
        new RegExp(matcher);
      } catch {
        throw bad(`${at}.matcher`, `is not a valid regular expression: ${JSON.stringify(matcher)}`);
      }
      if (!Array.isArray(group.hooks)) throw bad(`${at}.hooks`, 'must be a list of {"type": "command", …}');
      for (const [j, hook] of group.hooks.entries()) {
        const hat = `${at}.hooks[${j}]`;
        if (!isRecord(hook) || hook.type !== "command")
          throw bad(hat, 'must be {"type": "command", "command": "…"} (the only type relm runs)');
        if (typeof hook.command !== "string" || hook.command.trim() === "")
          throw bad(`${hat}.command`, "must be a command line");
        const timeout = hook.timeout ?? DEFAULT_TIMEOUT_S;
        if (typeof timeout !== "number" || !(timeout > 0))
          throw bad(`${hat}.timeout`, "must be a number of seconds > 0");
        out.push({
          event: event as HookEventName,
          matcher,
          command: hook.command,
          timeoutMs: timeout * 1000,
          source,
          file,
        });
      }
    }
  }
  return out;
}

/**
 * The project's `.relm/hooks.json` as it is now: its raw content (what an approval hashes) and its
 * commands; undefined when there is none. It holds `{"hooks": {...}}`, as a Claude Code settings file
 * does, or the event object alone.
 */
export function readProjectHooks(project: string): { raw: unknown; commands: HookCommand[] } | undefined {
  const file = projectHooksFile(project);
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = parseEditedJson(readBoundedText(file, PROJECT_FILE_BYTES));
  } catch (error) {
    if (error instanceof FileShapeError) throw new ConfigError(`${error.message}; fix it or remove it`);
    throw new ConfigError(`${file} is not valid JSON (${(error as Error).message}); fix it or remove it`);
  }
  const table = isRecord(raw) && "hooks" in raw ? raw.hooks : raw;
  return { raw, commands: parseHooks(table, file, "project") };
}
