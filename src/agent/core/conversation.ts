import { skillModuleOf } from "../../kernel/index.js";
import type { CellResult } from "../../kernel/types.js";
import type { Message } from "../../llm/types.js";
import type { JournalBody } from "../../session/types.js";
import { buildSystemPrompt, type KernelPython } from "./prompt.js";
import type { PromptInputs } from "./prompt-inputs.js";
import type { RebuiltConversation } from "./resume.js";
import { userMessage } from "./tool.js";
import { renderVariableLine, type VariableDescription } from "./variables.js";

const LAST_OUTPUT_CHARS = 2000;

/**
 * One agent's conversation with its model, as the turn loop (loop.ts) carries it on: the system prompt
 * and how it was built (so a compaction can renew it), the messages, the turn numbers, the size of the
 * last prompt, and what the agent saw last (for a parent's error report and a stall check).
 */
export class Conversation {
  readonly messages: Message[] = [];
  /** Input + output tokens of the last model response: the next prompt's size, which compaction watches. */
  contextTokens = 0;
  /** Cells that printed something: an autonomous run compares it to notice a stall. */
  cellsRun = 0;
  /** The end of the last cell output or final answer. */
  lastOutput = "";
  /** Notices from the model client already journaled (each said once, not with every request). */
  readonly notices = new Set<string>();
  private turns = 0;
  private kernelSettled = false;

  private constructor(
    private inputs: PromptInputs,
    private text: string,
  ) {}

  /**
   * A new agent's: the prompt built from `inputs` and journaled, so a resumed session sends exactly the
   * same system prompt (prompt cache).
   */
  static start(inputs: PromptInputs, record: (body: JournalBody) => unknown): Conversation {
    const conversation = new Conversation(inputs, buildSystemPrompt(...inputs));
    record({ type: "system_prompt", text: conversation.text });
    return conversation;
  }

  /** A resumed agent's, rebuilt from its journal (resume.ts) with the system prompt it was sent. */
  static resumed(inputs: PromptInputs, system: string, rebuilt: RebuiltConversation): Conversation {
    const conversation = new Conversation(inputs, system);
    conversation.messages.push(...rebuilt.messages);
    conversation.turns = rebuilt.lastTurn;
    conversation.contextTokens = rebuilt.contextTokens;
    return conversation;
  }

  get system(): string {
    return this.text;
  }

  /** The number of the turn about to call the model. */
  nextTurn(): number {
    return ++this.turns;
  }

  /** The last turn number used. */
  get turn(): number {
    return this.turns;
  }

  /** A model response came back: the next prompt holds all of it. */
  sized(usage: { inputTokens: number; outputTokens: number }): void {
    this.contextTokens = usage.inputTokens + usage.outputTokens;
  }

  /** A cell's result went back to the model. */
  sawCell(result: CellResult): void {
    if (result.output.length > 0) this.cellsRun += 1;
    this.lastOutput = result.output.slice(-LAST_OUTPUT_CHARS);
  }

  /** The turn ended with an answer (its text, or the submitted value's). */
  answered(text: string): void {
    this.lastOutput = text.slice(-LAST_OUTPUT_CHARS);
  }

  /** A line from relm for the model to read before its next call. */
  note(text: string): void {
    this.messages.push(userMessage(text));
  }

  /** A variable set in the kernel since the start: a renewed prompt lists it (in place of one of the same name). */
  nameVariable(d: VariableDescription): void {
    const facts = this.inputs[0];
    const others = facts.variables.filter((line) => !line.startsWith(`\`${d.name}\`:`));
    facts.variables = [...others, renderVariableLine(d)];
  }

  /**
   * The kernel (re)started and said what its Python is and which skills it cannot import: the prompt's
   * facts follow it, so any later rebuild of the prompt (the first request's, a compaction's) tells the
   * truth about it, where the host's own look at a local kernel's skills (prompt-inputs.ts) was wrong too.
   */
  kernelStarted(python: KernelPython, unusedSkillDirs: readonly string[]): void {
    const facts = this.inputs[0];
    facts.python = { version: python.version, ipython: python.ipython };
    if (facts.skillPackages) facts.unusableSkills = unusedSkillDirs.map(skillModuleOf);
  }

  /**
   * Whether the prompt still has to hear from the kernel before the first request: one elsewhere, whose
   * Python cannot be known before it starts, or one given skill packages whose shadowed ones the host
   * could not tell (its interpreter's probe listed no modules) (kernel-facts.ts). A local kernel's
   * the host tells at once (prompt-inputs.ts): most sessions have skills, and need not wait.
   */
  get awaitsKernel(): boolean {
    const facts = this.inputs[0];
    const skillsUnknown = facts.skillPackages === true && facts.unusableSkills === undefined;
    return this.turns === 0 && !this.kernelSettled && (facts.remoteKernel !== undefined || skillsUnknown);
  }

  /**
   * Before the first request: the prompt rebuilt with what the kernel reported (kernelStarted); its
   * text when that changed it (journal it), undefined when not. Nothing was sent yet, so no provider
   * has cached the old one.
   */
  settleKernel(): string | undefined {
    this.kernelSettled = true;
    return this.rebuild(this.inputs);
  }

  /**
   * The system prompt rebuilt with the harness block as it is now; returns its text when that changed
   * it (journal it), undefined when not.
   */
  renew(harnessBlock: string | undefined): string | undefined {
    const [facts, extras] = this.inputs;
    return this.rebuild([facts, { ...extras, harness: harnessBlock }]);
  }

  /** The prompt built from `inputs`, kept with them when its text changed (returned then); else undefined. */
  private rebuild(inputs: PromptInputs): string | undefined {
    const text = buildSystemPrompt(...inputs);
    if (text === this.text) return undefined;
    this.inputs = inputs;
    this.text = text;
    return text;
  }
}
