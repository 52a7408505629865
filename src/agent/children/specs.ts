import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { FileShapeError, PROJECT_FILE_BYTES, readBoundedText } from "../../config/bounded-read.js";
import { parseTimeLimit } from "../../config/duration.js";
import { UserError } from "../../config/errors.js";
import { yamlLib } from "../../config/lazy.js";
import { modeNamed, type PermissionMode } from "../../config/permission-mode.js";
import { projectRoot } from "../../config/project-root.js";
import { parseKernelUri } from "../../kernel/launchers/index.js";
import type { BudgetLimits } from "../budget/budget.js";

/** A named kind of child agent: `.relm/agents/NAME.yaml`. */
export interface AgentSpec {
  name: string;
  path: string;
  description: string;
  model?: string;
  /** Appended to the child's system prompt. */
  instructions?: string;
  /** Where its kernel runs: a kernel URI (`kernel: ssh://gpu1`), checked when the spec is read. */
  kernel?: string;
  /**
   * Its permission mode (`mode: plan`): it can only narrow the parent's, so a project file (which
   * sandboxed code can write) may say it.
   */
  mode?: PermissionMode;
  limits: BudgetLimits;
}

/** A spec file that cannot be used; the message names the file and line. */
export class SpecError extends UserError {
  override name = "SpecError";
  readonly code = "usage";
}

const FIELDS = [
  "description",
  "model",
  "instructions",
  "kernel",
  "mode",
  "max_turns",
  "max_tokens",
  "max_time",
] as const;

/** `.relm/agents/` of the project: the nearest `.relm/` up to the repository root (as for the harness). */
export function specsDir(cwd: string): string {
  return join(projectRoot(cwd), ".relm", "agents");
}

/**
 * Every usable spec of the project (name and description go into the parent's prompt). A broken file
 * is left out here and reported, with its file and line, when something asks for it by name.
 */
export function listSpecs(cwd: string): AgentSpec[] {
  const dir = specsDir(cwd);
  if (!existsSync(dir)) return [];
  const specs: AgentSpec[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()) {
    try {
      specs.push(parseSpec(join(dir, file)));
    } catch (error) {
      if (!(error instanceof SpecError)) throw error;
    }
  }
  return specs;
}

export function loadSpec(cwd: string, name: string): AgentSpec {
  if (!/^[A-Za-z0-9][\w.-]*$/.test(name)) throw new SpecError(`spec "${name}": not a valid spec name`);
  const dir = specsDir(cwd);
  for (const ext of ["yaml", "yml"]) {
    const path = join(dir, `${name}.${ext}`);
    if (existsSync(path)) return parseSpec(path);
  }
  const known = listSpecs(cwd).map((s) => s.name);
  const hint = known.length ? ` (known: ${known.join(", ")})` : "";
  throw new SpecError(`no sub-agent spec "${name}" in ${dir}${hint}`);
}

function parseSpec(path: string): AgentSpec {
  const { isMap, isScalar, LineCounter, parseDocument } = yamlLib();
  let text: string;
  try {
    text = readBoundedText(path, PROJECT_FILE_BYTES);
  } catch (error) {
    if (error instanceof FileShapeError) throw new SpecError(`${error.message}; fix it or remove it`);
    throw error;
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number | undefined) =>
    `${path}:${offset === undefined ? 1 : lines.linePos(offset).line}`;
  const firstError = doc.errors[0];
  if (firstError)
    throw new SpecError(`${at(firstError.pos[0])}: invalid YAML: ${firstError.message.split("\n")[0]}`);
  if (!isMap(doc.contents))
    throw new SpecError(`${at(0)}: a spec must be a mapping of fields (${FIELDS.join(", ")})`);

  const spec: AgentSpec = { name: basename(path).replace(/\.ya?ml$/, ""), path, description: "", limits: {} };
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const where = at(isScalar(pair.key) ? pair.key.range?.[0] : undefined);
    const node = pair.value;
    const value = isScalar(node) ? node.value : undefined;
    if (!(FIELDS as readonly string[]).includes(key)) {
      throw new SpecError(`${where}: unknown field "${key}"; allowed: ${FIELDS.join(", ")}`);
    }
    if (key === "max_turns" || key === "max_tokens") {
      if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
        throw new SpecError(`${where}: ${key} must be a positive whole number`);
      }
      spec.limits[key === "max_turns" ? "maxTurns" : "maxTokens"] = value;
    } else if (key === "max_time") {
      if (typeof value !== "number" && typeof value !== "string") {
        throw new SpecError(`${where}: max_time must be a duration such as 90s or 10m`);
      }
      try {
        const ms = parseTimeLimit(String(value), "max_time");
        if (ms !== undefined) spec.limits.maxTimeMs = ms;
      } catch (error) {
        throw new SpecError(`${where}: ${(error as Error).message}`);
      }
    } else {
      if (typeof value !== "string") throw new SpecError(`${where}: ${key} must be text`);
      if (key === "description") spec.description = value.trim();
      else if (key === "model") spec.model = value.trim();
      else if (key === "kernel") spec.kernel = specKernel(value, where);
      else if (key === "mode") {
        const mode = modeNamed(value);
        if (!mode) throw new SpecError(`${where}: mode must be plan (read-only), workspace or full`);
        spec.mode = mode;
      } else spec.instructions = value.trim();
    }
  }
  if (!spec.description)
    throw new SpecError(`${at(0)}: a spec needs a description (one line: what it is for)`);
  return spec;
}

/** A spec's `kernel:`, checked now: a bad URI names the file and line. */
function specKernel(value: string, where: string): string {
  try {
    parseKernelUri(value, `${where}: kernel`);
  } catch (error) {
    throw new SpecError(error instanceof Error ? error.message : String(error));
  }
  return value.trim();
}
