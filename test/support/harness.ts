import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ScriptContext, ScriptStep } from "../../src/scripted/index.js";

/**
 * A request of the refine model — its refine prompt, or the relevance check that follows it
 * (src/learning/refine/refine-relevance.ts) — as opposed to an agent's turn.
 */
export function isRefine(ctx: Pick<ScriptContext, "rawBody">): boolean {
  return ctx.rawBody.includes("Propose harness edits for session") || isRelevanceCheck(ctx);
}

/** The refine model's relevance check: do the quotes of the proposed edits support them? */
export function isRelevanceCheck(ctx: Pick<ScriptContext, "rawBody">): boolean {
  return ctx.rawBody.includes("You check the evidence of proposed harness edits");
}

/** One edit a relevance check asks about, as its prompt shows it. */
export interface RelevanceItem {
  /** Its "claim:" line (op, kind, title, content). */
  claim: string;
  /** Its "quoted:" line. */
  quoted: string;
  /** The cited events' excerpts, one per line ("[n] …"). */
  events: string;
}

/** The edits a relevance check asks about, in order. */
export function relevanceItems(ctx: Pick<ScriptContext, "lastUserText">): RelevanceItem[] {
  const blocks = (ctx.lastUserText ?? "").split(/^## Edit \d+$/m).slice(1);
  return blocks.map((b) => ({
    claim: /^claim: (.*)$/m.exec(b)?.[1] ?? "",
    quoted: /^quoted: (.*)$/m.exec(b)?.[1] ?? "",
    events: (/\ncited events:\n([\s\S]*?)(?:\n\nReply with only[\s\S]*)?$/.exec(b)?.[1] ?? "").trim(),
  }));
}

/**
 * Answers relevance checks (and leaves other requests to the script): `decide` says whether each edit's
 * evidence supports it (true/false, or "no: why" / "yes: why").
 */
export function relevanceAnswer(
  decide: (item: RelevanceItem) => boolean | string,
): (ctx: ScriptContext) => ScriptStep | undefined {
  return (ctx) => {
    if (!isRelevanceCheck(ctx)) return undefined;
    const answers = relevanceItems(ctx).map((item, i) => {
      const said = decide(item);
      const yes = said === true || (typeof said === "string" && said.startsWith("yes"));
      const why = typeof said === "string" ? said.replace(/^(yes|no):?\s*/, "") : "scripted";
      return { edit: i + 1, supports: yes ? "yes" : "no", why };
    });
    return { text: JSON.stringify(answers) };
  };
}

/** Every test rig's stock answer (test/support/scripted.ts): each quote supports its edit. */
export const supportsAll = relevanceAnswer(() => true);

/** Event numbers in a refine prompt's trajectory whose description starts with `what` ("cell", "output (error"). */
export function eventNumbers(ctx: Pick<ScriptContext, "lastUserText">, what: string): number[] {
  const text = ctx.lastUserText ?? "";
  return [...text.matchAll(/^\[(\d+)\] (.*)$/gm)]
    .filter((m) => m[2]?.startsWith(what))
    .map((m) => Number(m[1]));
}

/**
 * Words of event `n` exactly as the refine prompt shows them (the start of its block), for an edit's
 * "quote": relm rejects an edit whose quote is not found in the events it cites.
 */
export function quoteOf(ctx: Pick<ScriptContext, "lastUserText">, n: number | undefined): string {
  const text = ctx.lastUserText ?? "";
  const start = text.indexOf(`\n[${n}] `);
  if (n === undefined || start < 0) return "";
  const rest = text.slice(start + `\n[${n}] `.length);
  const end = rest.search(/\n\[\d+\] |\n\[events |\n\nReply with only/);
  return (end < 0 ? rest : rest.slice(0, end)).replace(/\s+/g, " ").trim().slice(0, 60).trim();
}

/** Entry ids listed under "Current harness entries" in a refine prompt. */
export function listedEntries(ctx: Pick<ScriptContext, "lastUserText">): string[] {
  return [...(ctx.lastUserText ?? "").matchAll(/^- \[([a-z]+-[0-9a-z]{6})\]/gm)].map((m) => m[1] as string);
}

/** A refine model's answer: the edits as a JSON array. */
export function edits(list: unknown[]): ScriptStep {
  return { text: JSON.stringify(list) };
}

export function sessionIds(home: string): string[] {
  const dir = join(home, "sessions");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Every file under the given folders, with its bytes and mode: to prove a command wrote nothing. */
export function snapshot(...roots: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = statSync(path);
      if (st.isDirectory()) {
        out[`${path}/`] = `dir ${st.mode}`;
        walk(path);
      } else out[path] = `${st.mode} ${readFileSync(path, "base64")}`;
    }
  };
  for (const root of roots) if (existsSync(root)) walk(root);
  return out;
}

/** The system prompt of a captured request, for either wire format. */
export function systemOf(body: unknown): string {
  const b = body as { system?: unknown; messages?: { role: string; content: unknown }[] };
  if (typeof b.system === "string") return b.system;
  if (Array.isArray(b.system)) return b.system.map((s: { text?: string }) => s.text ?? "").join("");
  const first = b.messages?.find((m) => m.role === "system");
  return typeof first?.content === "string" ? first.content : JSON.stringify(first?.content ?? "");
}

/**
 * A refine model that proposes one memory, citing the first cell of the trajectory it reviews, the
 * first time it is asked, and nothing after: the lesson most learning tests script.
 */
export function lessonOnce(content: string, hypothesis: string): (ctx: ScriptContext) => ScriptStep {
  let asked = 0;
  return (ctx) => {
    if (asked++ > 0) return edits([]);
    const [cell] = eventNumbers(ctx, "cell:");
    return edits([
      { op: "add", kind: "memory", content, evidence: [cell], quote: quoteOf(ctx, cell), hypothesis },
    ]);
  };
}

/** The steps of the "parse the config" task: json.loads fails on a dict literal, ast.literal_eval reads it. */
export const PARSE_CONFIG_STEPS: ScriptStep[] = [
  { code: "import json\njson.loads(\"{'port': 8080}\")" },
  { code: "import ast\ncfg = ast.literal_eval(\"{'port': 8080}\")\nprint(cfg['port'])" },
  { text: "port 8080" },
];

/** The lesson of that task, citing its failed cell and the one that worked (an `add` edit). */
export function configLesson(ctx: ScriptContext) {
  const [failed] = eventNumbers(ctx, "output (error");
  const [, fixed] = eventNumbers(ctx, "cell:");
  return {
    op: "add",
    kind: "memory",
    title: "config format",
    content: "config.txt holds a Python dict literal, not JSON: read it with ast.literal_eval.",
    evidence: [failed, fixed],
    quote: [quoteOf(ctx, failed), quoteOf(ctx, fixed)],
    reason: "json.loads failed on it",
    hypothesis: "no JSONDecodeError on config.txt again",
  };
}
