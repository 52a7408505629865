import type { CellResult } from "../../kernel/types.js";
import type { ContentPart, Message, ToolCall, ToolSpec } from "../../llm/types.js";

/** The model's only tool. Its schema is a constant so every request serialises it to the same bytes. */
export const IPYTHON_TOOL: ToolSpec = {
  name: "ipython",
  description:
    "Run a cell of Python in the persistent session. State persists between calls. Top-level await works; " +
    "!shell commands, %%bash cells and %magics only where the kernel has IPython (the system prompt says). " +
    "Returns the cell's output.",
  parameters: {
    type: "object",
    properties: {
      code: { type: "string", description: "The code of the cell." },
    },
    required: ["code"],
    additionalProperties: false,
  },
};

/** Text the model reads as a user message: relm's notes, messages, summaries, lessons. */
export function userMessage(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

/** A message from another agent (or relm) as the model reads it at a turn boundary; resume.ts replays it. */
export function messageFrom(from: string, text: string): Message {
  return userMessage(`[message from ${from}]\n${text}`);
}

/** A tool call answered with plain text: an error, or `[reason]` for a call that was not run. */
export function toolText(callId: string, text: string): Message {
  return { role: "tool", toolCallId: callId, content: [{ type: "text", text }] };
}

type ParsedCall = { ok: true; code: string } | { ok: false; error: string };

/** Reads the code out of a tool call, tolerating models that send the code as a bare string. */
export function parseToolCall(call: ToolCall): ParsedCall {
  if (call.name !== IPYTHON_TOOL.name) {
    return {
      ok: false,
      error: `Unknown tool "${call.name}". The only tool is "ipython" with a "code" string.`,
    };
  }
  let args: unknown;
  try {
    args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch {
    return { ok: false, error: 'The tool arguments were not valid JSON. Send {"code": "..."}.' };
  }
  if (typeof args === "string") return { ok: true, code: args };
  const code = (args as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return { ok: false, error: 'Missing "code": send {"code": "<python>"}.' };
  return { ok: true, code };
}

/** The text the model sees for a cell: its output, then anything it must know about the kernel. */
export function renderCellResult(
  result: Pick<CellResult, "output" | "shellExitCode" | "note" | "images">,
): ContentPart[] {
  let text = result.output.length > 0 ? result.output : "[no output]";
  if (result.shellExitCode !== undefined) {
    text += `${text.endsWith("\n") ? "" : "\n"}[relm] A shell command in this cell exited with status ${result.shellExitCode}.`;
  }
  if (result.note) text += `${text.endsWith("\n") ? "" : "\n"}[relm] ${result.note}`;
  const content: ContentPart[] = [{ type: "text", text }];
  for (const image of result.images)
    content.push({ type: "image", mimeType: image.mimeType, data: image.data });
  return content;
}
