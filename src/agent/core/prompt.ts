import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { readBoundedText } from "../../config/bounded-read.js";

/**
 * The immutable base of every system prompt. It never changes within a release, so the provider's
 * prompt cache can hold it; everything situational goes in the sections after it.
 */
export const BASE_PROMPT = `You are relm, an agent that works by running Python.

# Your tool
You have one tool, \`ipython\`, which runs a cell of code in a persistent Python session on the user's machine.
- State persists between cells: variables, imports, functions, open files. Build on earlier cells instead of repeating work.
- Where the kernel has IPython (the Environment section says), IPython syntax works: \`!ls\`, \`!git status\`, \`%%bash\` cells, \`%cd\`. Top-level \`await\` works in every kernel.
- Output of print(), of the last expression, and of shell commands comes back to you, capped to a head and a tail. The full text of cell N stays in the kernel as \`_out[N]\`, so slice or search it in code rather than printing it again.
- Each cell has a time limit; a cell that runs too long is interrupted. Run long jobs in steps or in the background.
- The working directory is the user's project. Your code runs with the user's rights: read before you change, prefer small reversible edits, and never delete what you did not create.

# Working with data
Large inputs are given to you as Python variables, not pasted into this conversation. Inspect them in code (len, slicing, regex, parsing) and print only what you need. Keep intermediate results in variables.

# Python API (already imported)
- \`rlm(task, **variables)\` runs a child agent, with its own kernel and transcript, on \`task\` and returns its result. Keyword arguments become variables in the child's kernel; the child is told their names, types and sizes, never their content. Use children to split large work (one per file, chunk or question) and keep your own context small. Raises \`rlm.ChildError\` (with \`.reason\` and \`.last_output\`) if the child fails, \`rlm.BudgetExceeded\` when the budget runs out.
- \`rlm.spawn(task, name=None, spec=None, model=None, kernel=None, mode=None, **variables)\` starts a child without waiting and returns an \`Agent\`: \`.result(timeout=None)\`, \`.status\`, \`.send(text)\`, \`.cancel()\`, \`.id\`, \`.name\`; \`await agent\` works too. \`rlm.map(task, items, max_parallel=None)\` runs one child per item (given as the variable \`item\`) and returns their results in order (\`kernel="ssh://host"\` runs children's kernels elsewhere; \`mode="plan"\` runs them read-only: a child never gets a wider permission mode than yours); \`rlm.collect(agents)\` waits for many; \`rlm.agents()\` lists your children with status and spend.
- \`llm(prompt, model=None)\` is one plain completion (no kernel, no tools), for cheap classification or summaries; \`llm.batch(prompts)\` runs many at once.
- \`plan(["step", …])\` shows the user your task list as a checklist; \`plan(doing=2)\`, \`plan(done=1)\` mark steps (numbered from 1). Keep one for work of several steps.
- \`request(kind, reason, **details)\` asks the user for what your permission mode does not allow, and waits for the answer: \`request("net", why, host="pypi.org")\` (the sandbox may reach that host from then on), \`request("run", why, cmd="git push")\` (one shell command run outside the sandbox; returns its \`output\` and \`exit_code\`), \`request("write", why, path=..., content=text)\` (a file outside what you may write), \`request("mode", why, mode="full")\` (the kernel restarts in that mode after the cell, variables kept). Say plainly why in \`reason\`; ask only when needed. A refusal raises \`request.Denied\` (a PermissionError) with the reason: do without it, or explain in your answer.
- \`submit(value)\` sets your result to any picklable value and ends your run after the current cell. When another agent started you, its code receives that value itself.

# Finishing
When the task is done, reply with your final answer as plain text and no tool call. Be concise and concrete: say what you found or changed, and how you checked it. If you could not finish, say what is missing.
`;

/** A kernel's Python as it runs cells: its version, and IPython's (null: plain Python, no IPython syntax). */
export interface KernelPython {
  version: string;
  ipython: string | null;
}

export interface EnvironmentFacts {
  cwd: string;
  /** 0 for the agent a person started; children are one deeper than their parent. */
  depth: number;
  maxDepth: number;
  date: string;
  platform: string;
  /**
   * The kernel's Python: for a local kernel the interpreter relm found here, for one elsewhere as the
   * kernel reported itself when it started; undefined while not known (it had not started).
   */
  python?: KernelPython;
  /**
   * The kernel URI when the agent's kernel runs elsewhere (ssh, a container, Slurm …): then the
   * platform found on this machine is not the kernel's, and the prompt says so instead.
   */
  remoteKernel?: string;
  /** One line per variable already in the kernel. */
  variables: string[];
  /** Whether the kernel is given skill packages (the harness lists them as `import NAME`). */
  skillPackages?: boolean;
  /** Skill modules the kernel reported it cannot import (another module of the name comes first). */
  unusableSkills?: string[];
}

export function renderEnvironment(facts: EnvironmentFacts): string {
  const lines = [
    "# Environment",
    `- Working directory: ${facts.cwd}`,
    `- Date: ${facts.date}`,
    facts.remoteKernel
      ? `- Kernel: runs through ${facts.remoteKernel}, not on this machine: its platform, files and working directory are that side's (platform.platform(), os.getcwd() tell)`
      : `- Platform: ${facts.platform}`,
    pythonLine(facts.python),
    facts.depth < facts.maxDepth
      ? `- Sub-agents: available (you are at depth ${facts.depth} of at most ${facts.maxDepth})`
      : `- Sub-agents: not available at your depth (${facts.depth} of at most ${facts.maxDepth}); rlm() raises, so do the work in this kernel`,
  ];
  for (const name of facts.unusableSkills ?? []) {
    lines.push(
      `- Skill ${name} cannot be imported here: \`import ${name}\` gives another module, which comes first; do not use the skill (the person was told to rename it)`,
    );
  }
  if (facts.variables.length > 0) {
    lines.push("", "# Variables in the kernel", ...facts.variables.map((v) => `- ${v}`));
  }
  return lines.join("\n");
}

/** What the kernel's Python takes: IPython syntax only where it has IPython (plain exec fails on `!`). */
function pythonLine(python: KernelPython | undefined): string {
  if (!python) {
    return "- Python: not known yet (the kernel had not started): try IPython syntax (`!cmd`, `%magic`) in a small cell before relying on it";
  }
  return python.ipython
    ? `- Python ${python.version} with IPython ${python.ipython}: IPython syntax works`
    : `- Python ${python.version} without IPython: plain Python only. \`!commands\`, \`%magics\` and \`%%bash\` cells are syntax errors here; run shell commands with subprocess.run(...)`;
}

/** AGENTS.md from the working directory or the nearest parent that has one, capped so it cannot bloat. */
export function findAgentsMd(cwd: string, maxChars = 20_000): { path: string; text: string } | undefined {
  let dir = cwd;
  for (;;) {
    const path = join(dir, "AGENTS.md");
    if (existsSync(path)) {
      // AGENTS.md may be anything a kernel left (a FIFO, a huge sparse file): only a regular file's first
      // bytes are read, at most four per character kept; one that cannot be read is left out.
      let text: string;
      try {
        // Only a file really in that folder: a link to elsewhere may have been planted by a kernel.
        text = readBoundedText(path, maxChars * 4, { cut: true, inside: dir });
      } catch {
        return undefined;
      }
      const capped =
        text.length > maxChars
          ? `${text.slice(0, maxChars)}\n[AGENTS.md truncated at ${maxChars} chars]`
          : text;
      return { path, text: capped };
    }
    if (existsSync(join(dir, ".git"))) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export interface PromptExtras {
  /** The bundled toolkit's one-line listing (toolkit-prompt.ts), rendered once per tree. */
  toolkit?: string;
  /** The continual harness's rendered entries (memories, skills, prompts, specs), frozen per session. */
  harness?: string;
  agentsMd?: { path: string; text: string };
  /** Set for a child agent: how it was started. */
  role?: string;
  /** A spec's instructions for this child. */
  instructions?: { spec: string; text: string };
  /** Specs this agent may start children from. */
  specs?: { name: string; description: string }[];
  /** The MCP servers and their tools (mcp-prompt.ts), frozen per session like the harness. */
  mcp?: string;
}

/** Base prompt, then project instructions, the agent's role and spec, environment facts and specs. */
export function buildSystemPrompt(facts: EnvironmentFacts, extras: PromptExtras = {}): string {
  const sections = [BASE_PROMPT.trimEnd()];
  // Right after the base: it is the same for every session of a release, so it stays in the cached prefix.
  if (extras.toolkit?.trim()) sections.push(extras.toolkit.trimEnd());
  if (extras.harness?.trim()) sections.push(extras.harness.trimEnd());
  if (extras.agentsMd) {
    sections.push(`# Project instructions (${extras.agentsMd.path})\n${extras.agentsMd.text.trimEnd()}`);
  }
  if (extras.role) sections.push(`# Your role\n${extras.role}`);
  if (extras.instructions) {
    const { spec, text } = extras.instructions;
    sections.push(`# Instructions for this sub-agent (spec "${spec}")\n${text}`);
  }
  sections.push(renderEnvironment(facts));
  if (extras.mcp?.trim()) sections.push(extras.mcp.trimEnd());
  if (extras.specs && extras.specs.length > 0 && facts.depth < facts.maxDepth) {
    const list = extras.specs.map((s) => `- ${s.name}: ${s.description}`).join("\n");
    sections.push(`# Sub-agent specs (rlm.spawn(task, spec="NAME"))\n${list}`);
  }
  return `${sections.join("\n\n")}\n`;
}
