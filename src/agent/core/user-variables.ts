import { join } from "node:path";
import { UserError } from "../../config/errors.js";
import { writeNoFollow } from "../../kernel/sandbox/no-follow.js";
import { ensurePrivateDir } from "../../session/index.js";
import type { JournalBody } from "../../session/types.js";
import { KERNEL_API_NAMES } from "./variable-names.js";
import {
  describeVariable,
  isVariableName,
  renderVariableLine,
  type VariableDescription,
  type VariableSpec,
  variableEvent,
} from "./variables.js";

/** A variable a person sends with a message (a large paste): text that goes to the kernel, not the prompt. */
export interface UserVariable {
  name: string;
  text: string;
}

/** A variable that is too large or badly named; the message says which and why. */
export class VariableInputError extends UserError {
  override name = "VariableInputError";
  override readonly exitCode = 2;
}

export const MAX_VARIABLE_BYTES = 32 * 1024 * 1024;
const MAX_VARIABLES = 20;

/** Checks what a client sent as `variables: [{name, text}]`. */
export function checkUserVariables(raw: unknown): UserVariable[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new VariableInputError("variables must be a list of {name, text}");
  if (raw.length > MAX_VARIABLES)
    throw new VariableInputError(`at most ${MAX_VARIABLES} variables per message, got ${raw.length}`);
  const seen = new Set<string>();
  return raw.map((item) => {
    const v = (item ?? {}) as { name?: unknown; text?: unknown };
    if (typeof v.name !== "string" || typeof v.text !== "string")
      throw new VariableInputError("each variable needs a name and a text (both strings)");
    if (!isVariableName(v.name)) {
      throw new VariableInputError(
        `variable ${JSON.stringify(v.name)}: the name must be a Python identifier not starting with "_"`,
      );
    }
    if (KERNEL_API_NAMES.has(v.name))
      throw new VariableInputError(`variable ${v.name}: that name belongs to relm's Python API`);
    if (seen.has(v.name)) throw new VariableInputError(`variable ${v.name} is given twice`);
    seen.add(v.name);
    const bytes = Buffer.byteLength(v.text);
    if (bytes > MAX_VARIABLE_BYTES) {
      throw new VariableInputError(
        `variable ${v.name} is too large: ${bytes.toLocaleString("en-US")} bytes, at most ${MAX_VARIABLE_BYTES.toLocaleString("en-US")}`,
      );
    }
    return { name: v.name, text: v.text };
  });
}

/**
 * Writes each variable to `DIR/inputs/NAME.txt` (private) and returns it as a kernel input read from
 * that file: nothing large stays in the host's memory, and a restarted kernel loads it again.
 */
export function stageUserVariables(
  dir: string,
  variables: UserVariable[],
): { spec: VariableSpec; description: VariableDescription }[] {
  if (variables.length === 0) return [];
  const inputs = join(dir, "inputs");
  ensurePrivateDir(inputs);
  return variables.map((v) => {
    const file = join(inputs, `${v.name}.txt`);
    // A child's folder is writable by its tree's kernels (sandboxed ones too): not through a link there.
    writeNoFollow(file, v.text, 0o600);
    const spec: VariableSpec = { name: v.name, source: { file } };
    // The path is relm's own bookkeeping: the model is told the shape, not where it was staged.
    const { origin: _origin, ...description } = describeVariable(spec);
    return { spec, description };
  });
}

/** The agent staged variables go to: its kernel, its journal, its conversation (a failure is told there). */
interface VariableTarget {
  readonly kernel: { addVariable(spec: VariableSpec): Promise<void> };
  readonly log: { record(body: JournalBody): unknown };
  readonly conversation: { note(text: string): void; nameVariable(description: VariableDescription): void };
}

/** Variables a person sent with a message, waiting for the next turn boundary. */
export class PendingVariables {
  private readonly staged: ReturnType<typeof stageUserVariables> = [];

  constructor(private readonly dir: () => string) {}

  /** Stages them now (files) and returns how to name them to the model. */
  queue(variables: UserVariable[]): string[] {
    const staged = stageUserVariables(this.dir(), variables);
    this.staged.push(...staged);
    return staged.map((v) => renderVariableLine(v.description));
  }

  /** Sets every staged variable in the kernel, journaling each as a `variable` event. */
  async apply(target: VariableTarget): Promise<void> {
    for (const { spec, description: d } of this.staged.splice(0)) {
      try {
        await target.kernel.addVariable(spec);
        target.log.record(variableEvent(d));
        // Named in the prompt inputs: a compaction's rebuilt prompt lists it.
        target.conversation.nameVariable(d);
      } catch (error) {
        const reason = `the variable ${d.name} could not be set in the kernel: ${(error as Error).message}`;
        target.log.record({ type: "error", message: reason });
        target.conversation.note(`[relm] ${reason}`);
      }
    }
  }
}
