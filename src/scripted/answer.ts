// A scripted answer in wire-neutral form, and the deterministic chunking both wire writers use.

interface ScriptedUsage {
  /** Total prompt tokens, cached ones included. */
  input: number;
  output: number;
  cached: number;
}

export interface Answer {
  id: string;
  model: string;
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  /** null when the server is told not to report usage. */
  usage: ScriptedUsage | null;
  /** Cut off at the request's max_tokens, as a real model's answer would be (finish_reason length). */
  truncated?: boolean;
  /**
   * What the model thought first: a Responses reasoning item (`id`, summary `text`, `secret` as its
   * encrypted_content when the request asked for it) or an Anthropic thinking block (`secret` its
   * signature; `redacted` the data of a redacted_thinking block after it).
   */
  thought?: Thought;
  /** Responses output item ids: the message's, and each function call's by call id. */
  itemIds?: { message: string; calls: Record<string, string> };
}

export interface Thought {
  id: string;
  text: string;
  secret: string;
  redacted?: string;
  /** Responses: whether encrypted_content is included (the request's `include`). */
  encrypted?: boolean;
}

/** Characters per output token, the same four the usage report counts. */
const CHARS_PER_TOKEN = 4;

/**
 * Cuts an answer to `maxTokens` output tokens the way a model that hits its limit stops: mid-text, or
 * mid-arguments of a tool call (whose JSON is then incomplete), and nothing after that.
 */
export function limitAnswer(answer: Answer, maxTokens: number | undefined): Answer {
  if (maxTokens === undefined || outputChars(answer) <= maxTokens * CHARS_PER_TOKEN) return answer;
  let room = Math.max(0, maxTokens * CHARS_PER_TOKEN);
  const text = answer.text.slice(0, room);
  room -= text.length;
  const toolCalls: Answer["toolCalls"] = [];
  for (const call of answer.toolCalls) {
    if (room <= 0) break;
    const args = call.arguments.slice(0, room);
    room -= args.length;
    toolCalls.push({ ...call, arguments: args });
  }
  return { ...answer, text, toolCalls, truncated: true };
}

/** Fixed-size pieces, so streamed deltas exercise reassembly the same way on every run. */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function outputChars(answer: Pick<Answer, "text" | "toolCalls">): number {
  return answer.text.length + answer.toolCalls.reduce((n, c) => n + c.arguments.length, 0);
}

/**
 * An answer's frames split for an endless stream: those before the first delta of `text` (which must fit
 * in one delta, 16 characters), and that delta's frame, to be written again and again.
 */
export function endlessFrames(frames: string[], text: string): { head: string[]; repeat: string } {
  const quoted = JSON.stringify(text);
  const at = frames.findIndex((f) => f.includes(quoted));
  if (at === -1) throw new Error(`no frame carries ${quoted}`);
  return { head: frames.slice(0, at), repeat: frames[at] as string };
}
