// The older part of a conversation as text for the summarising model, sized to fit its window: long
// outputs and cells are cut to head and tail first, and only then is the middle of the transcript dropped.

import type { ContentPart, Message } from "../../llm/types.js";

function partsText(parts: readonly ContentPart[]): string {
  return parts.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
}

function clip(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const half = Math.floor(cap / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters omitted ...]\n${text.slice(-half)}`;
}

/** The code of an `ipython` call, or the raw arguments of anything else. */
function callText(name: string, args: string): string {
  try {
    const parsed = JSON.parse(args) as { code?: unknown };
    if (name === "ipython" && typeof parsed.code === "string") return parsed.code;
  } catch {
    // Not JSON: show it as sent.
  }
  return args;
}

interface Caps {
  text: number;
  code: number;
  output: number;
}

function render(messages: readonly Message[], caps: Caps): string {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role === "user") out.push(`### User\n${clip(partsText(m.content), caps.text)}`);
    else if (m.role === "assistant") {
      const lines = [`### Assistant`];
      if (m.text.trim()) lines.push(clip(m.text, caps.text));
      for (const call of m.toolCalls) {
        const lang = call.name === "ipython" ? "python" : "";
        lines.push(
          `[${call.name} call ${call.id}]`,
          `\`\`\`${lang}`,
          clip(callText(call.name, call.arguments), caps.code),
          "```",
        );
      }
      out.push(lines.join("\n"));
    } else {
      out.push(`### Output of ${m.toolCallId}\n\`\`\`\n${clip(partsText(m.content), caps.output)}\n\`\`\``);
    }
  }
  return out.join("\n\n");
}

/** A transcript of `messages` in at most `budget` characters (roughly; markers add a little). */
export function renderTranscript(messages: readonly Message[], budget: number): string {
  let caps: Caps = { text: 8_000, code: 4_000, output: 4_000 };
  let text = render(messages, caps);
  while (text.length > budget && caps.output > 200) {
    caps = {
      text: Math.floor(caps.text / 2),
      code: Math.floor(caps.code / 2),
      output: Math.floor(caps.output / 2),
    };
    text = render(messages, caps);
  }
  if (text.length <= budget) return text;
  // Still too long: the start (the task) and the most recent part matter most.
  const head = Math.floor(budget / 4);
  const tail = budget - head;
  return `${text.slice(0, head)}\n\n[... ${text.length - budget} characters of the transcript omitted ...]\n\n${text.slice(-tail)}`;
}
