// Scripts for many agents at once: each agent is recognised by its task (its first user message) and
// plays its own list of steps, one per model call, in whatever order the agents' requests arrive.
import type { ScriptContext, ScriptItem, ScriptStep } from "./script.js";

interface WireMessage {
  role: string;
  content: unknown;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((c) =>
      c && typeof c === "object" && (c as { type?: string }).type === "text"
        ? (c as { text: string }).text
        : "",
    )
    .join("");
}

/** Responses input: user messages' text, and each run of the model's own items counts as one turn. */
function whoAsksResponses(input: unknown[]): { task: string; turn: number } {
  let task: string | undefined;
  let turn = 0;
  let inAnswer = false;
  for (const raw of input) {
    const item = (raw ?? {}) as { type?: string; role?: string; content?: unknown };
    const own = item.type === "reasoning" || item.type === "function_call" || item.role === "assistant";
    if (own && !inAnswer) turn++;
    inAnswer = own;
    if (item.role === "user" && task === undefined) {
      task = Array.isArray(item.content)
        ? item.content.map((c) => (c as { text?: string })?.text ?? "").join("")
        : textOf(item.content);
    }
  }
  return { task: task ?? "", turn };
}

/** The task of the agent that sent this request and how many turns it has had (assistant messages). */
export function whoAsks(ctx: Pick<ScriptContext, "body">): { task: string; turn: number } {
  const input = (ctx.body as { input?: unknown }).input;
  if (Array.isArray(input)) return whoAsksResponses(input);
  const body = ctx.body as { messages?: WireMessage[] };
  const messages = (body.messages ?? []).filter((m) => m.role !== "system");
  const task = textOf(messages.find((m) => m.role === "user")?.content);
  const turn = messages.filter((m) => m.role === "assistant").length;
  return { task, turn };
}

/** `scripts` maps a fragment of a task to that agent's steps; the first matching fragment wins. */
export function byTask(scripts: Record<string, ScriptItem[]>): (ctx: ScriptContext) => Promise<ScriptStep> {
  return async (ctx) => {
    const { task, turn } = whoAsks(ctx);
    const key = Object.keys(scripts).find((k) => task.includes(k));
    if (key === undefined) return { text: `no script for the task ${JSON.stringify(task.slice(0, 80))}` };
    const item = (scripts[key] as ScriptItem[])[turn];
    if (item === undefined) return { text: `the script for "${key}" has no step ${turn + 1}` };
    return typeof item === "function" ? item(ctx) : item;
  };
}
