// Which requests the lists answer without asking anyone (docs/sandbox.md, "Approvals"): config.json's
// `approvals.allow` / `approvals.deny`, the project's "always" answers ($RELM_HOME/approvals.json) and
// this session's "allow for this session" answers. The deny list wins over every allow list.
import { readlinkSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ApprovalLists, ApprovalRules } from "../../config/approvals.js";
import { ConfigError } from "../../config/errors.js";
import { within } from "../../config/paths.js";
import type { PermissionMode } from "../../config/permission-mode.js";
import { allowed, parseNetRule } from "../../kernel/sandbox/policy.js";
import type { NetRule } from "../../kernel/sandbox/types.js";

/** One request, as the host checked it (paths absolute, hosts lower-case). */
export type ApprovalAsk =
  | { kind: "net"; host: string; port?: number }
  | { kind: "run"; cmd: string }
  | { kind: "write"; path: string; bytes: number }
  | { kind: "mode"; mode: PermissionMode };

/**
 * Shell syntax that chains or substitutes commands: a command holding any of it is never granted by a
 * prefix rule (`git status; rm -rf ~` starts with `git status`), only by a rule equal to all of it.
 */
const SHELL_JOIN = /[;&|`$<>()\n\r\\]/;

function words(cmd: string): string[] {
  return cmd.trim().split(/\s+/).filter(Boolean);
}

/** A rule's words `r` are the first words of a command's, `c`. */
function prefixOf(r: readonly string[], c: readonly string[]): boolean {
  return r.length > 0 && r.length <= c.length && r.every((w, i) => w === c[i]);
}

/** The pieces of a command line a shell runs one by one (for the deny list: any of them matches). */
function pieces(cmd: string): string[] {
  return cmd
    .split(/;|&&|\|\||\||&|\n|\r|`|\$\(|[(){}]/)
    .map((p) => p.trim())
    .filter(Boolean);
}

/** Words before a command that only say how it runs (keywords, wrappers): the command comes after. */
const LEADING_WORDS = new Set([
  "!",
  "if",
  "then",
  "do",
  "else",
  "elif",
  "while",
  "until",
  "time",
  "exec",
  "command",
  "builtin",
  "nohup",
  "env",
  "sudo",
  "doas",
]);

/**
 * The words a shell would run for one piece, as the deny list compares them: quotes and backslashes
 * removed (`r''m`, `\rm` and `"rm"` run rm), keywords, wrappers and variable assignments before the
 * command skipped, and the command's path cut to its name (`/bin/rm`). Best effort: a denied command
 * run through `sh -c '...'`, `eval` or a variable is not seen (docs/sandbox.md).
 */
function commandWords(piece: string): string[] {
  const all = words(piece).map((w) => w.replace(/['"\\]/g, ""));
  let i = 0;
  while (i < all.length && (LEADING_WORDS.has(all[i] as string) || /^[A-Za-z_]\w*=/.test(all[i] as string)))
    i++;
  const rest = all.slice(i);
  if (rest[0]?.includes("/")) rest[0] = path.basename(rest[0]);
  return rest;
}

function commandAllowed(rules: readonly string[], cmd: string): boolean {
  return rules.some(
    (rule) =>
      words(rule).join(" ") === words(cmd).join(" ") ||
      (!SHELL_JOIN.test(cmd) && prefixOf(words(rule), words(cmd))),
  );
}

function commandDenied(rules: readonly string[], cmd: string): boolean {
  const run = [cmd, ...pieces(cmd)].map(commandWords);
  return rules.some((rule) => run.some((c) => prefixOf(words(rule), c)));
}

/** `~/x` and project-relative rules made absolute. */
function rulePath(rule: string, project: string): string {
  const expanded = rule === "~" || rule.startsWith("~/") ? path.join(os.homedir(), rule.slice(1)) : rule;
  return path.resolve(project, expanded);
}

/** Links followed at most this many times (as the kernel's own limit, ELOOP). */
const MAX_LINKS = 40;

/**
 * `file` with its existing ancestors' symlinks resolved: a link inside an allowed folder that points
 * elsewhere is matched where it leads. A link whose target does not exist yet is followed too: writing
 * through it creates that target, so a link a cell planted in the project (`report.txt` -> `~/.profile`)
 * is asked about, and matched, where it leads, not as a file of the project.
 */
export function realTarget(file: string, links = 0): string {
  const missing: string[] = [];
  let dir = path.resolve(file);
  for (;;) {
    try {
      return path.join(realpathSync(dir), ...missing.reverse());
    } catch {
      const link = links < MAX_LINKS ? linkText(dir) : undefined;
      if (link !== undefined)
        return realTarget(path.join(path.resolve(path.dirname(dir), link), ...missing.reverse()), links + 1);
      const parent = path.dirname(dir);
      if (parent === dir) return path.resolve(file);
      missing.push(path.basename(dir));
      dir = parent;
    }
  }
}

function linkText(p: string): string | undefined {
  try {
    return readlinkSync(p);
  } catch {
    return undefined; // not a link (or gone)
  }
}

function pathMatches(rules: readonly string[], file: string, project: string): boolean {
  return rules.some((rule) => {
    const r = rulePath(rule, project);
    return within(file, r) || within(file, realTarget(r));
  });
}

/** Whether `rules` reach `host`: a request for every port of it only by a rule for every port. */
export function netAllowed(rules: readonly NetRule[], host: string, port: number | undefined): boolean {
  return port === undefined
    ? allowed(
        rules.filter((r) => r.port === undefined),
        host,
        1,
      )
    : allowed(rules, host, port);
}

/** Whether one list of rules covers `ask` (modes are never on a list: a person or --approve auto decides). */
export function rulesMatch(rules: ApprovalRules, ask: ApprovalAsk, project: string, deny = false): boolean {
  switch (ask.kind) {
    case "net":
      return netAllowed(
        rules.hosts.map((r) => parseNetRule(r)),
        ask.host,
        ask.port,
      );
    case "run":
      return deny ? commandDenied(rules.commands, ask.cmd) : commandAllowed(rules.commands, ask.cmd);
    case "write":
      return pathMatches(rules.paths, ask.path, project);
    case "mode":
      return false;
  }
}

/**
 * What the lists say of `ask`: "deny" when the deny list covers it (whatever any allow list says),
 * "allow" when an allow list does, else undefined (someone, or --approve, decides).
 */
export function listAnswer(
  deny: ApprovalRules,
  allows: readonly ApprovalRules[],
  ask: ApprovalAsk,
  project: string,
): "allow" | "deny" | undefined {
  if (rulesMatch(deny, ask, project, true)) return "deny";
  return allows.some((rules) => rulesMatch(rules, ask, project)) ? "allow" : undefined;
}

/** The rule that grants exactly `ask` again ("allow for this session", "always for this project"). */
export function ruleFor(ask: ApprovalAsk): { list: keyof ApprovalRules; rule: string } | undefined {
  switch (ask.kind) {
    case "net":
      return { list: "hosts", rule: ask.port === undefined ? ask.host : `${ask.host}:${ask.port}` };
    case "run":
      return { list: "commands", rule: words(ask.cmd).join(" ") };
    case "write":
      return { list: "paths", rule: ask.path };
    case "mode":
      return undefined;
  }
}

/** The host rules of config.json's lists checked now: a bad one is named with its file, not at a request. */
export function checkLists(lists: ApprovalLists, where: string): void {
  for (const side of ["allow", "deny"] as const) {
    for (const host of lists[side].hosts) {
      try {
        parseNetRule(host);
      } catch (error) {
        throw new ConfigError(
          `${where}: approvals.${side}.hosts: ${(error as Error).message.replace(/^--allow-net /, "")}`,
        );
      }
    }
  }
}
