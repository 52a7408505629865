import type { ScriptContext, ScriptItem, ScriptStep } from "../../src/llm/scripted/index.js";

interface Msg {
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

/** The task of the agent that sent this request (its first user message) and how many turns it has had. */
export function whoAsks(ctx: ScriptContext): { task: string; turn: number; system: string } {
  const body = ctx.body as { messages?: Msg[]; system?: unknown };
  const messages = (body.messages ?? []).filter((m) => m.role !== "system");
  const system =
    ctx.format === "openai"
      ? textOf((body.messages ?? []).find((m) => m.role === "system")?.content)
      : textOf(body.system);
  const first = messages.find((m) => m.role === "user");
  const task = textOf(first?.content);
  const turn = messages.filter((m) => m.role === "assistant").length;
  return { task, turn, system };
}

/**
 * A script for many agents at once: each agent is recognised by a fragment of its task and plays its
 * own list of steps, one per model call, whatever order the agents' requests arrive in.
 */
export function byTask(scripts: Record<string, ScriptItem[]>): (ctx: ScriptContext) => Promise<ScriptStep> {
  return async (ctx) => {
    const { task, turn } = whoAsks(ctx);
    const key = Object.keys(scripts).find((k) => task.includes(k));
    if (key === undefined) return { text: `no script for task ${JSON.stringify(task.slice(0, 80))}` };
    const item = (scripts[key] as ScriptItem[])[turn];
    if (item === undefined) return { text: `script for ${key} exhausted at turn ${turn}` };
    return typeof item === "function" ? item(ctx) : item;
  };
}
