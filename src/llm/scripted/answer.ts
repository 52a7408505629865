// A scripted answer in wire-neutral form, and the deterministic chunking both wire writers use.

export interface ScriptedUsage {
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
