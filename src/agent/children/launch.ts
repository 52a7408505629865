// Starting a child agent: the checks (depth, budget), its spec, model and kernel, its id and name, the
// `child_spawned` line of the parent's journal, and the agent itself; and the inputs Python packs for it.

import { join } from "node:path";
import { modeNamed, type PermissionMode } from "../../config/permission-mode.js";
import { sandboxUnavailable } from "../../kernel/sandbox/index.js";
import { newSessionId } from "../../session/index.js";
import type { VariableSpec } from "../core/variables.js";
import { asRecord, KernelCallError } from "../kernel-api/errors.js";
import {
  checkKernelUri,
  escapesSandbox,
  type KernelPolicy,
  sandboxRefusal,
} from "../kernel-api/kernel-target.js";
import { handoffPickle } from "./handoff-files.js";
import { requireTrustedSpecKernel } from "./spec-trust.js";
import type { AgentSpec } from "./specs.js";
import type { ChildAgent, ParentAgent } from "./types.js";

/** How a child is asked for: rlm.spawn(...) or one item of rlm.map(...). */
export interface LaunchOptions {
  name?: string;
  /** What the front end shows beside its name (a map item's preview). */
  label?: string;
  spec?: string;
  model?: string;
  kernel?: string;
  /** The mode it asks for (rlm(..., mode=...)): it gets it only when no wider than its parent's. */
  mode?: string;
  variables: VariableSpec[];
}

/** A child that has been started, as its parent tracks it. */
export interface LaunchedChild {
  id: string;
  name: string;
  label?: string;
  task: string;
  model: string;
  agent: ChildAgent;
}

const LABEL_CHARS = 60;

/**
 * Starts a child of `parent` on `task` (its own kernel, journal and budget inside the parent's). Throws
 * the caller's error when the tree is too deep or the budget spent; `nextNumber` names unnamed children.
 */
export function launchChild(
  parent: ParentAgent,
  task: string,
  opts: LaunchOptions,
  nextNumber: () => number,
): LaunchedChild {
  const tree = parent.tree;
  if (parent.depth >= tree.maxDepth) {
    throw new KernelCallError(
      `rlm: no sub-agents at depth ${parent.depth} (--max-depth ${tree.maxDepth}); do this part of the work in this kernel`,
      "depth",
    );
  }
  const stop = parent.budget.check();
  if (stop) throw new KernelCallError(`rlm: ${stop.message}`, "budget");
  const spec = opts.spec ? tree.spec(opts.spec) : undefined;
  const client = tree.client(opts.model ?? spec?.model);
  const mode = childMode(parent, opts.mode, spec);
  const kernel = childKernel(opts.kernel, spec, tree.kernelPolicy(mode));
  // A spec's kernel the sandbox allows is still the project's choice: used once the user trusts it.
  if (spec && opts.kernel === undefined) requireTrustedSpecKernel(tree.options, spec);
  const id = newSessionId();
  const n = nextNumber();
  const name = opts.name ?? (spec ? `${spec.name}-${n}` : `child-${n}`);
  parent.record({
    type: "child_spawned",
    id,
    name,
    task,
    spec: spec?.name,
    model: client.model,
    label: opts.label,
    variables: opts.variables.map((v) => ({
      name: v.name,
      type: v.description?.type ?? "?",
      size: v.description?.size ?? "?",
    })),
  });
  const agent = parent.newChild({
    id,
    dir: join(parent.dir, "children", id),
    name,
    task,
    depth: parent.depth + 1,
    parentId: parent.id,
    client,
    budget: parent.budget.child(spec?.limits),
    variables: opts.variables,
    spec,
    ...(kernel ? { kernel } : {}),
    mode,
  });
  return { id, name, label: opts.label, task, model: client.model, agent };
}

/**
 * The variables Python packed for a child: each described there and pickled to a file the child's kernel
 * loads (`consume`: it removes the pickle once loaded).
 */
export function packedVariables(raw: unknown, consume: boolean): VariableSpec[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new KernelCallError("variables must be a list");
  return raw.map((item) => {
    const v = asRecord(item, "variable");
    if (typeof v.name !== "string" || typeof v.pickle !== "string") {
      throw new KernelCallError("each variable needs a name and a pickle file");
    }
    return {
      name: v.name,
      source: { pickle: handoffPickle(v.pickle, `variable ${v.name}`) },
      consume,
      description: { name: v.name, type: String(v.type), size: String(v.size), preview: String(v.preview) },
    };
  });
}

/**
 * A map child's label: its item's preview on one line, at most 60 chars. A string item's quotes are
 * dropped, so `'src/a.py'` reads `src/a.py`.
 */
export function labelOf(description: { type: string; preview: string } | undefined): string | undefined {
  if (!description) return undefined;
  let text = description.preview.replace(/\s+/g, " ").trim();
  const quoted = /^(['"])(.*)\1$/.exec(text) ?? /^(['"])(.*)…$/.exec(text);
  if (description.type === "str" && quoted) text = quoted[2] as string;
  if (text.length === 0) return undefined;
  return text.length > LABEL_CHARS ? `${text.slice(0, LABEL_CHARS - 1)}…` : text;
}

/**
 * A child's permission mode: the call's `mode=`, else its spec's, else its parent's; a wider one than
 * the parent's is narrowed to it (docs/sandbox.md). A sandboxed mode on a machine that cannot sandbox
 * is refused before anything starts.
 */
function childMode(
  parent: ParentAgent,
  asked: string | undefined,
  spec: AgentSpec | undefined,
): PermissionMode {
  let named: PermissionMode | undefined;
  if (asked !== undefined) {
    named = modeNamed(asked);
    if (!named)
      throw new KernelCallError(
        `rlm mode=${JSON.stringify(asked)}: a mode is "plan" (read-only), "workspace" or "full"`,
      );
  }
  const mode = parent.tree.permissions.narrow(named ?? spec?.mode, parent.mode);
  if (mode !== "full" && parent.mode === "full") {
    const missing = sandboxUnavailable(parent.tree.options.kernel.env, `rlm mode="${mode}"`);
    if (missing) throw new KernelCallError(missing, "sandbox");
  }
  return mode;
}

/**
 * A child's kernel URI: the call's, else its spec's. A bad one is the caller's ValueError; in a
 * sandboxed tree one that would leave the sandbox is refused (PermissionError) before anything starts,
 * since a cell or the project's files chose it, not the user (kernel-target.ts, docs/sandbox.md).
 */
function childKernel(
  uri: string | undefined,
  spec: AgentSpec | undefined,
  policy: KernelPolicy,
): string | undefined {
  let called: string | undefined;
  try {
    called = checkKernelUri(uri, "rlm kernel=");
  } catch (error) {
    throw new KernelCallError(error instanceof Error ? error.message : String(error));
  }
  if (called !== undefined) {
    if (escapesSandbox(called, policy)) {
      throw new KernelCallError(
        `rlm kernel=: ${sandboxRefusal(called, policy)}. Leave kernel= out to run the sub-agent in this ` +
          "sandbox; only the person running relm can choose another kernel (relm --kernel URI).",
        "sandbox",
      );
    }
    return called;
  }
  const fromSpec = spec?.kernel;
  if (fromSpec !== undefined && escapesSandbox(fromSpec, policy)) {
    throw new KernelCallError(
      `agent spec "${spec?.name}" (${spec?.path}): ${sandboxRefusal(fromSpec, policy)}. The spec is a ` +
        "project file, which sandboxed code can write, so its kernel: is not trusted here. Use the spec " +
        "without --sandbox, or ask the person running relm to give that kernel with --kernel.",
      "sandbox",
    );
  }
  return fromSpec;
}
