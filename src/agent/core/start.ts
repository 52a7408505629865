// How a root agent comes to be: started by a person (a new tree), or resumed from its journal in a new
// process. Children are made by their parent (Agent.newChild).

import { join } from "node:path";
import { UserError } from "../../config/errors.js";
import { findPython, markKernelEnv } from "../../kernel/index.js";
import { probeConfinement } from "../../kernel/sandbox/index.js";
import { JOURNAL_FILE, Journal, newSessionId, readJournal, sessionDir } from "../../session/index.js";
import { Budget, type BudgetLimits } from "../budget/budget.js";
import { Agent } from "./agent.js";
import { type RebuiltConversation, rebuildConversation } from "./resume.js";
import { toolText } from "./tool.js";
import { AgentTree, type TreeOptions } from "./tree.js";
import type { VariableSpec } from "./variables.js";

interface StartOptions extends TreeOptions {
  /** Given when the id was chosen before the session started (a detached run prints it first). */
  id?: string;
  title: string;
  variables: VariableSpec[];
  limits: BudgetLimits;
}

interface ResumeOptions extends TreeOptions {
  id: string;
  limits: BudgetLimits;
  /**
   * What the session's tree spent before this process took it over (its journals): budgets are the
   * session's, not one host's, so a revived host does not start from zero (docs/budgets.md).
   */
  spentBefore?: { turns: number; tokens: number; cost: number | null };
}

/** The agent a person starts: the root of a new tree. */
export async function startAgent(options: StartOptions): Promise<Agent> {
  const python = await findTreePython(options);
  const id = options.id ?? newSessionId();
  const tree = new AgentTree(markKernels(options, id), python);
  return new Agent(tree, {
    id,
    dir: sessionDir(options.home, id),
    title: options.title,
    depth: 0,
    client: options.client,
    budget: new Budget(options.limits),
    variables: options.variables,
    sink: tree.sink,
  });
}

/**
 * Continues a saved or interrupted session in this process: the conversation is rebuilt from the
 * journal, whatever was in flight is answered as "not replayed", and the kernel is restored from the
 * last snapshot. Returns the note that tells the model all that (also said with its next message).
 */
export async function resumeAgent(options: ResumeOptions): Promise<{ agent: Agent; note: string }> {
  const python = await findTreePython(options);
  const tree = new AgentTree(markKernels(options, options.id), python);
  const dir = sessionDir(options.home, options.id);
  const { header, events, journal, system, rebuilt } = openForResume(dir, options.id, options.secrets);
  // A model switched with /model stays switched; children without a model of their own follow it.
  const client = rebuilt.model ? tree.client(rebuilt.model) : options.client;
  tree.setDefaultClient(client);
  const agent = new Agent(tree, {
    id: options.id,
    dir,
    title: header.title,
    depth: 0,
    client,
    budget: new Budget(options.limits),
    variables: [],
    sink: tree.sink,
    resume: { journal, system, rebuilt, events },
  });
  if (options.spentBefore) agent.budget.carry(options.spentBefore);
  const note = await settleResumed(agent, rebuilt, journal.repairedTail);
  agent.turns.noteNext(note);
  agent.settledAtResume =
    rebuilt.settled && rebuilt.unanswered.length === 0 && rebuilt.modelCallInFlight === undefined;
  return { agent, note };
}

/**
 * The tree's interpreter. In a sandboxed session, one that sandboxed code could have written (a python3
 * on PATH inside the project, as an activated project venv puts it) is probed only inside a confinement:
 * run on the host, a planted `python3` would run with the user's rights before any kernel starts.
 */
function findTreePython(options: TreeOptions) {
  const { env, cacheDir, permissions } = options.kernel;
  const sandboxed = permissions !== undefined && permissions.mode !== "full";
  const trust = sandboxed
    ? { untrusted: [options.cwd], wrap: probeConfinement(env, options.home) }
    : undefined;
  return findPython(env, cacheDir, trust);
}

/**
 * The tree's options with its kernels (and their template) marked as this session's: a session host
 * then knows a connection from inside them for what it is (src/host/peer.ts).
 */
function markKernels<T extends TreeOptions>(options: T, id: string): T {
  return { ...options, kernel: { ...options.kernel, env: markKernelEnv(options.kernel.env, id) } };
}

/** A session that cannot be continued; the message says why. */
class SessionResumeError extends UserError {
  override name = "SessionResumeError";
}

/**
 * A root session's journal, read back (its events, the conversation they rebuild, and the latest system
 * prompt: a compaction may have renewed it with a refined harness) and reopened for appending.
 */
function openForResume(dir: string, id: string, secrets: string[]) {
  const { header, events } = readJournal(join(dir, JOURNAL_FILE));
  if (header.parent) {
    throw new SessionResumeError(
      `session ${id} is a sub-agent of ${header.parent}; resume that session instead`,
    );
  }
  const journal = Journal.open(dir, { secrets });
  const system = events.findLast((e) => e.type === "system_prompt");
  if (system?.type !== "system_prompt") {
    journal.close();
    throw new SessionResumeError(`session ${id} was written by an older relm and cannot be resumed`);
  }
  return { header, events, journal, system: system.text, rebuilt: rebuildConversation(dir, events) };
}

/**
 * Answers whatever was in flight as "not replayed", restores the kernel from the snapshot, journals a
 * `resumed` event, and returns the note that tells the model all that.
 */
async function settleResumed(
  agent: Agent,
  rebuilt: RebuiltConversation,
  repairedTail: boolean,
): Promise<string> {
  const uncertain: string[] = [];
  if (repairedTail) uncertain.push("the journal's last line was half-written and was removed");
  if (rebuilt.modelCallInFlight !== undefined) {
    uncertain.push(`the model call of turn ${rebuilt.modelCallInFlight} was in flight; it was not replayed`);
  }
  for (const { turn, call, started } of rebuilt.unanswered) {
    const reason = started
      ? "not run again: this cell was running when the session's host stopped, so it may have run partly"
      : "not run: the session's host stopped before this cell ran";
    agent.record({ type: "tool_skipped", turn, callId: call.id, reason });
    agent.conversation.messages.push(toolText(call.id, `[${reason}]`));
    uncertain.push(
      `a cell of turn ${turn} ${started ? "was running (it may have run partly)" : "had not started"}`,
    );
  }
  const restored = await agent.kernel.restoreSnapshot();
  // The budget it goes on from: a turn's own spend is what its end says minus this (tui/turn-spend.ts).
  agent.record({ type: "resumed", uncertain, ...restored, spent: agent.budget.spent() });
  const lines = [`[relm] This session was resumed in a new process (${agent.tree.now().toISOString()}).`];
  if (uncertain.length > 0) lines.push(`When the previous process stopped: ${uncertain.join("; ")}.`);
  if (restored.restored.length > 0) {
    lines.push(
      `Kernel variables restored from the snapshot after the last finished cell: ${restored.restored.join(", ")}.`,
    );
  }
  if (restored.notRestored.length > 0) {
    const lost = restored.notRestored.map((v) => `${v.name} (${v.reason})`).join(", ");
    lines.push(`Not restored: ${lost}.`);
  }
  return lines.join("\n");
}
