import { shadowedSkillFolders, skillFolders, skillModuleOf } from "../../kernel/index.js";
import { parseKernelUri } from "../../kernel/launchers/index.js";
import type { PythonInfo } from "../../kernel/types.js";
import type { JournalEvent } from "../../session/types.js";
import type { AgentSpec } from "../children/specs.js";
import type { EnvironmentFacts, KernelPython, PromptExtras } from "./prompt.js";
import { renderVariableLine } from "./variables.js";

/** What an agent's prompt takes from its tree (AgentTree). */
interface PromptTree {
  readonly options: {
    readonly cwd: string;
    readonly kernel: { readonly env: NodeJS.ProcessEnv; readonly target?: string };
  };
  readonly maxDepth: number;
  readonly python: PythonInfo;
  readonly toolkitBlock: string;
  readonly promptSection: string | undefined;
  readonly agentsMd: { path: string; text: string } | undefined;
  readonly mcpBlock: string | undefined;
  now(): Date;
  specs(): AgentSpec[];
}

/** How an agent's system prompt is built, kept so a compaction can rebuild it with a refined harness. */
export type PromptInputs = [EnvironmentFacts, PromptExtras];

const CHILD_ROLE =
  "You are a sub-agent: another agent's code started you with the task below and is waiting for " +
  "your result. Finish it yourself; for a structured result call submit(value), otherwise your " +
  "final text is the result.";

/** The facts and sections of an agent's system prompt, as of now. */
export function promptInputsFor(
  tree: PromptTree,
  agent: { depth: number; variables: string[]; child: boolean; spec?: AgentSpec; kernel?: string },
): PromptInputs {
  const remoteKernel = agent.kernel && isRemoteKernel(agent.kernel) ? agent.kernel : undefined;
  const skills = skillFolders(tree.options.kernel.env);
  return [
    {
      cwd: tree.options.cwd,
      depth: agent.depth,
      maxDepth: tree.maxDepth,
      date: tree.now().toISOString().slice(0, 10),
      platform: `${process.platform} ${process.arch}`,
      // A kernel elsewhere says what its Python is when it starts (kernel-facts.ts waits for it).
      ...(remoteKernel ? { remoteKernel } : { python: localPython(tree) }),
      variables: agent.variables,
      ...(skills.length > 0 ? skillFacts(tree, skills, remoteKernel !== undefined) : {}),
    },
    {
      toolkit: tree.toolkitBlock,
      harness: tree.promptSection,
      agentsMd: tree.agentsMd,
      role: agent.child ? CHILD_ROLE : undefined,
      instructions: agent.spec?.instructions
        ? { spec: agent.spec.name, text: agent.spec.instructions }
        : undefined,
      specs: tree.specs(),
      mcp: tree.mcpBlock,
    },
  ];
}

/**
 * A resumed root's prompt inputs, rebuilt from its journal (its variables as journaled), so that its
 * next compaction can renew the system prompt with a refined harness like a new session's does.
 */
export function resumedPromptInputs(tree: PromptTree, events: readonly JournalEvent[]): PromptInputs {
  const variables = events.flatMap((e) =>
    e.type === "variable"
      ? [renderVariableLine({ name: e.name, type: e.varType, size: e.size, preview: e.preview })]
      : [],
  );
  return promptInputsFor(tree, { depth: 0, variables, child: false, kernel: tree.options.kernel.target });
}

/**
 * A local kernel's Python: the interpreter relm found here (probed before the kernel starts, so the
 * first request need not wait for it); plain exec when the kernels' environment asks for it.
 */
function localPython(tree: PromptTree): KernelPython {
  const plain = tree.options.kernel.env.RELM_KERNEL_ENGINE?.trim().toLowerCase() === "plain";
  return { version: tree.python.version, ipython: plain ? null : tree.python.ipython };
}

/**
 * The skill packages' facts: which of them a local kernel cannot import, told here at once
 * (kernel/skill-shadow.ts); a kernel elsewhere, or one whose interpreter relm could not list, says so
 * when it starts, and kernel-facts.ts waits for that before the first request.
 */
function skillFacts(
  tree: PromptTree,
  folders: string[],
  remote: boolean,
): Pick<EnvironmentFacts, "skillPackages" | "unusableSkills"> {
  const { cwd, kernel } = tree.options;
  const shadowed = remote ? undefined : shadowedSkillFolders(folders, tree.python, cwd, kernel.env);
  return shadowed
    ? { skillPackages: true, unusableSkills: shadowed.map(skillModuleOf) }
    : { skillPackages: true };
}

/** Whether kernel URI `uri` starts kernels that share nothing with this machine (its launcher's transport). */
function isRemoteKernel(uri: string): boolean {
  try {
    return parseKernelUri(uri, "kernel").transport === "remote";
  } catch {
    return false; // checked where it was given; a prompt is no place to fail
  }
}
