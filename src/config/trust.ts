// The user's approvals of what a project asks relm to run: a project's MCP servers today; hooks, agent
// specs with kernels and gate commands can use the same store. Anything inside a project may have been
// written by a sandboxed cell (or came with a cloned repository), so relm runs such a thing only when
// the user approved exactly this content, as editors do for workspace trust: an approval is the SHA-256
// of a canonical JSON of the content, keyed by project directory, kind and name. A change to the content
// (one byte of a command, an added env variable) makes it "changed", not approved.
//
// Kept in $RELM_HOME/trust.json, which no sandboxed cell can see or write (the sandbox hides
// $RELM_HOME), written 0600 and atomically (a temporary file renamed over it, as private-file.ts writes
// config.json), so a crash leaves the old approvals or the new ones, never half a file.

import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "./errors.js";
import { realPath } from "./paths.js";
import { writePrivateJson } from "./private-file.js";
import { isRecord } from "./records.js";

/** What is approved: in which project, what kind of thing ("mcp", "hook", "agent", "gate"…), which one. */
export interface TrustSubject {
  /** The project directory (approvals are keyed by its real path: a symlinked checkout is the same project). */
  project: string;
  kind: string;
  name: string;
}

/** One approval as stored. */
interface Approval {
  /** contentHash() of the content the user approved. */
  sha256: string;
  /** When (ISO 8601). */
  approvedAt: string;
  /** Choices the user made with the approval (for an MCP server: `outsideSandbox`). */
  options?: Record<string, unknown>;
}

/** "approved": this exact content; "changed": an earlier content was approved, not this one. */
type TrustState =
  | { state: "approved"; approval: Approval }
  | { state: "changed"; approval: Approval }
  | { state: "not approved" };

const VERSION = 1;

export function trustFile(home: string): string {
  return join(home, "trust.json");
}

/**
 * JSON with object keys sorted at every depth and no whitespace: the same content gives the same text
 * however its file ordered the keys. `undefined` values are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    // defineProperty: a key named "__proto__" stays a key (an assignment would set the prototype).
    if (v !== undefined)
      Object.defineProperty(out, key, { value: sortKeys(v), enumerable: true, writable: true });
  }
  return out;
}

/** The SHA-256 (hex) of content's canonical JSON: what an approval records and is checked against. */
export function contentHash(content: unknown): string {
  return createHash("sha256").update(canonicalJson(content)).digest("hex");
}

type Kinds = Map<string, Map<string, Approval>>;

/**
 * The approvals as read from trust.json at one moment. Reading never changes the file; approve() and
 * revoke() change this copy, save() writes it. To change the file, use updateTrust(), which reads,
 * changes and writes in one step.
 */
export class TrustStore {
  private constructor(
    readonly path: string,
    private readonly projects: Map<string, Kinds>,
  ) {}

  /** The store in `home`; empty when trust.json does not exist. A damaged file is a ConfigError. */
  static load(home: string): TrustStore {
    const path = trustFile(home);
    return new TrustStore(path, existsSync(path) ? parse(path) : new Map());
  }

  /** Whether `sha256` is what the user approved for `subject`. */
  check(subject: TrustSubject, sha256: string): TrustState {
    const approval = this.approval(subject);
    if (!approval) return { state: "not approved" };
    return approval.sha256 === sha256 ? { state: "approved", approval } : { state: "changed", approval };
  }

  approval(subject: TrustSubject): Approval | undefined {
    return this.projects.get(realPath(subject.project))?.get(subject.kind)?.get(subject.name);
  }

  /** Every approval of one kind in one project, by name. */
  approvals(project: string, kind: string): Map<string, Approval> {
    return new Map(this.projects.get(realPath(project))?.get(kind) ?? []);
  }

  approve(subject: TrustSubject, sha256: string, options?: Record<string, unknown>): Approval {
    const approval: Approval = { sha256, approvedAt: new Date().toISOString() };
    if (options && Object.keys(options).length > 0) approval.options = options;
    const project = realPath(subject.project);
    const kinds = this.projects.get(project) ?? new Map<string, Map<string, Approval>>();
    this.projects.set(project, kinds);
    const names = kinds.get(subject.kind) ?? new Map<string, Approval>();
    kinds.set(subject.kind, names);
    names.set(subject.name, approval);
    return approval;
  }

  /** Forgets an approval; false when there was none. */
  revoke(subject: TrustSubject): boolean {
    const project = realPath(subject.project);
    const kinds = this.projects.get(project);
    const names = kinds?.get(subject.kind);
    if (!names?.delete(subject.name)) return false;
    if (names.size === 0) kinds?.delete(subject.kind);
    if (kinds?.size === 0) this.projects.delete(project);
    return true;
  }

  /** Writes the store to trust.json: 0600, atomically. */
  save(): void {
    const projects = Object.fromEntries(
      [...this.projects].map(([project, kinds]) => [
        project,
        Object.fromEntries([...kinds].map(([kind, names]) => [kind, Object.fromEntries(names)])),
      ]),
    );
    writePrivateJson(this.path, { version: VERSION, projects });
  }
}

/** Reads trust.json, lets `change` approve or revoke, writes it back; returns what `change` returned. */
export function updateTrust<T>(home: string, change: (store: TrustStore) => T): T {
  const store = TrustStore.load(home);
  const result = change(store);
  store.save();
  return result;
}

function damaged(path: string, why: string): ConfigError {
  return new ConfigError(
    `${path} ${why}; fix it or remove it (then approve again what you trust: relm mcp approve)`,
  );
}

/** The file's projects → kinds → names → approvals; anything malformed is a ConfigError naming the file. */
function parse(path: string): Map<string, Kinds> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw damaged(path, `could not be read (${(error as Error).message})`);
  }
  const projects = isRecord(data) ? data.projects : undefined;
  if (!isRecord(data) || data.version !== VERSION || !isRecord(projects))
    throw damaged(
      path,
      `is not a trust file relm can read (expected {"version": ${VERSION}, "projects": {…}})`,
    );
  const out = new Map<string, Kinds>();
  for (const [project, kinds] of Object.entries(projects)) {
    if (!isRecord(kinds)) throw damaged(path, `has a malformed entry for ${project}`);
    const byKind: Kinds = new Map();
    for (const [kind, names] of Object.entries(kinds)) {
      if (!isRecord(names)) throw damaged(path, `has a malformed entry for ${project} (${kind})`);
      const byName = new Map<string, Approval>();
      for (const [name, approval] of Object.entries(names)) {
        if (
          !isRecord(approval) ||
          typeof approval.sha256 !== "string" ||
          typeof approval.approvedAt !== "string"
        )
          throw damaged(path, `has a malformed approval for ${kind} "${name}" in ${project}`);
        const kept: Approval = { sha256: approval.sha256, approvedAt: approval.approvedAt };
        if (isRecord(approval.options)) kept.options = approval.options;
        byName.set(name, kept);
      }
      byKind.set(kind, byName);
    }
    out.set(project, byKind);
  }
  return out;
}
