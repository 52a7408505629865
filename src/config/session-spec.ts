// A session's options as data (config/options.ts is the table): the part a front end hands the hosts it
// starts, the file that carries it (a new host is given `--spec FILE`, not the options as words), and
// the merge of the options given now over remembered ones. host/session-flags.ts keeps flags.json with it.
import { readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import * as v from "valibot";
import { UsageError } from "./errors.js";
import { given, type Inherit, OPTIONS, type OptionDef, type OptionKey, type SessionSpec } from "./options.js";
import { writePrivateJson } from "./private-file.js";

const KIND_SCHEMA = {
  value: v.string(),
  list: v.array(v.string()),
  switch: v.boolean(),
} as const;

/** Options that may be in a spec file: all but those describing how one process was started. */
const IN_SPEC: readonly OptionDef[] = OPTIONS.filter((o) => typeof o.inherit === "string");

/** The spec file's shape: every key optional, each of its option's kind, nothing else. */
const SPEC_FILE = v.strictObject(
  Object.fromEntries(IN_SPEC.map((o) => [o.key, v.optional(KIND_SCHEMA[o.kind])])),
);

/** Groups of inherited options a front end may leave out of the hosts it starts. */
interface InheritOptions {
  /** false: no budget flags (the MCP server caps each task itself). Default true. */
  budgets?: boolean;
  /** false: no --var (front ends serving many tasks refuse it; each task gives its own). Default true. */
  variables?: boolean;
  /** false: no per-task options (gates, goal, autonomy): the terminal UI asks for those per session. */
  task?: boolean;
}

/**
 * What of `flags` the hosts a front end starts inherit, with --mcp-config files made absolute against
 * `cwd` (a host may run in another directory: relm acp's hosts run in the editor's project).
 */
export function inheritedSpec(flags: SessionSpec, cwd: string, options: InheritOptions = {}): SessionSpec {
  const skip = new Set<Inherit>(["launcher"]);
  if (options.budgets === false) skip.add("budget");
  if (options.variables === false) skip.add("variables");
  if (options.task === false) skip.add("task");
  const out: Record<string, unknown> = {};
  for (const { key, inherit } of OPTIONS) {
    if (typeof inherit !== "string" || skip.has(inherit) || !given(flags[key])) continue;
    out[key] = key === "mcpConfig" ? (flags.mcpConfig ?? []).map((f) => resolve(cwd, f)) : flags[key];
  }
  return out as SessionSpec;
}

/** Writes a new host's spec (0600: it may name files and hosts the user would not show others). */
export function writeSpecFile(path: string, spec: SessionSpec): void {
  writePrivateJson(path, spec);
}

/**
 * Reads and removes the spec file a host was started with. Written by relm itself, so anything that
 * does not fit is an error naming the file and the key, not a value to skip.
 */
export function takeSpecFile(path: string): SessionSpec {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UsageError(`--spec ${path}: ${(error as Error).message}`);
  } finally {
    rmSync(path, { force: true });
  }
  const result = v.safeParse(SPEC_FILE, parsed);
  if (!result.success) {
    const issue = result.issues[0];
    throw new UsageError(`--spec ${path}: ${v.getDotPath(issue) ?? "the file"}: ${issue.message}`);
  }
  return result.output as SessionSpec;
}

/**
 * The values of `parsed` (a remembered file) that fit their option's kind, one by one, for the keys
 * `keep` allows: a damaged value is dropped, the rest of the file still counts.
 */
export function specFromJson(parsed: unknown, keep: (def: OptionDef) => boolean): SessionSpec {
  if (typeof parsed !== "object" || parsed === null) return {};
  const out: Record<string, unknown> = {};
  for (const def of OPTIONS) {
    const value = (parsed as Record<string, unknown>)[def.key];
    // Only what counts as given: a switch that is on, a list with entries.
    if (given(value) && v.is(KIND_SCHEMA[def.kind], value) && keep(def)) out[def.key] = value;
  }
  return out as SessionSpec;
}

/**
 * `now` with `base`'s value for every option not given in `now` (what is given now wins). Of a setting
 * with two words (`--mode`, `--sandbox`), one given now replaces both remembered ones.
 */
export function mergeSpec<T extends SessionSpec>(now: T, base: SessionSpec): T {
  const merged = { ...now } as Record<string, unknown>;
  const settingsNow = new Set(
    (OPTIONS as readonly OptionDef[])
      .filter((o) => o.setting && given(now[o.key as OptionKey]))
      .map((o) => o.setting),
  );
  for (const def of OPTIONS as readonly OptionDef[]) {
    const key = def.key as OptionKey;
    if (def.setting && settingsNow.has(def.setting)) continue;
    if (!given(now[key]) && given(base[key])) merged[key] = base[key];
  }
  return merged as T;
}
