import type { EntryState, Scope } from "../store/index.js";
import type { Proposal } from "./refine-proposals.js";
import type { Trajectory } from "./refine-trajectory.js";

/** Fixed, so every refinement's request starts with the same bytes (and is cheap to cache). */
export const REFINE_SYSTEM = `You review the work of relm, a coding agent that works by running Python cells, and keep its "harness": short, durable lessons that later sessions read after their fixed base prompt.

Propose at most 5 edits, only for lessons that will matter again: a mistake that cost turns, a project fact that had to be discovered, a procedure worth reusing. Do not record what the task was or what was done once. Every edit must cite the [n] numbers of the trajectory events that show the lesson, and quote in "quote" the exact words of those events that it rests on (copied verbatim from the trajectory, at least a few words; a list of quotes when it rests on several). An edit without real evidence, or whose quote is not found word for word in the events it cites, is rejected. The base system prompt cannot be changed.

Kinds of entry:
- "memory": a fact or lesson, one or two sentences (at most 500 characters).
- "prompt": a standing instruction for future sessions (at most 1200 characters).
- "skill": a reusable procedure; "title" is its name (a Python module name) and "content" a one-line description (at most 300 characters).
- "agent": a sub-agent spec; "title" is its name, "content" its instructions, first line a description.

Reply with only a JSON array, no prose. Elements:
{"op": "add", "kind": "memory", "title": "short title", "content": "the lesson", "evidence": [12, 15], "quote": ["ModuleNotFoundError: No module named 'yaml'", "pip install pyyaml"], "reason": "why it matters", "hypothesis": "what should change once agents read it, e.g. the gate stops failing on ImportError"}
{"op": "update", "id": "mem-xxxxxx", "content": "the corrected lesson", "evidence": [20], "quote": "words of event 20", "reason": "..."}
{"op": "remove", "id": "mem-xxxxxx", "evidence": [21], "quote": "words of event 21", "reason": "shown wrong by event 21"}
Reply [] when nothing is worth keeping.`;

/** The user message of a refinement: the harness as it is, the agent's own proposals, the trajectory. */
export function refinePrompt(opts: {
  session: string;
  scope: Scope;
  entries: readonly EntryState[];
  proposals: readonly Proposal[];
  trajectory: Trajectory;
  /** Why this review runs now and what to look at first (a learning pass's trigger). */
  focus?: string;
}): string {
  const { session, scope, entries, proposals, trajectory } = opts;
  const lines = [`Propose harness edits for session ${session} (edits go to the ${scope} scope).`, ""];
  lines.push("# Current harness entries");
  if (entries.length === 0) lines.push("(none)");
  for (const e of entries) {
    const title = e.title ? ` ${e.title}:` : "";
    lines.push(`- [${e.id}] (${e.kind}, ${e.scope} scope)${title} ${e.content.replace(/\n/g, " ")}`);
  }
  lines.push(`Only entries of the ${scope} scope can be updated or removed.`, "");
  if (proposals.length > 0) {
    lines.push("# Edits the agent proposed during the session (adopt, improve or drop them)");
    for (const p of proposals) lines.push(`- at event ${p.event}: ${JSON.stringify(p.edit)}`);
    lines.push("");
  }
  if (opts.focus) lines.push("# Why this review runs now", opts.focus, "");
  lines.push(`# Trajectory: events ${trajectory.from}–${trajectory.to} of session ${session}`);
  lines.push(trajectory.text || "(no new events since the last refinement)");
  lines.push("", "Reply with only the JSON array of edits.");
  return lines.join("\n");
}

/**
 * The JSON array of a model's reply (the refine model's edits, the relevance check's verdicts), possibly
 * in a code fence or after some prose; else why it cannot be read (`invalid`: the bracketed text is not JSON).
 */
export function replyArray(text: string): unknown[] | { invalid?: string } {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced ? fenced[1] : text) ?? "";
  const start = body.indexOf("[");
  const end = body.lastIndexOf("]");
  if (start < 0 || end < start) return {};
  try {
    const parsed = JSON.parse(body.slice(start, end + 1)) as unknown;
    return Array.isArray(parsed) ? parsed : {};
  } catch (error) {
    return { invalid: (error as Error).message };
  }
}

/** The edits in the refine model's reply. */
export function parseEditList(text: string): unknown[] | { error: string } {
  const found = replyArray(text);
  if (Array.isArray(found)) return found;
  const excerpt = text.trim().slice(0, 200);
  if (found.invalid)
    return { error: `the refine model's list of edits is not valid JSON (${found.invalid}): ${excerpt}` };
  return { error: `the refine model did not answer with a JSON list of edits: ${excerpt}` };
}

/**
 * The edits complete before an answer was cut off (it passed the cap relm reads): each whole `{…}` of the
 * list, in order; the one cut in the middle, and anything after it, is lost.
 */
export function completeEdits(text: string): unknown[] {
  const fence = /```(?:json)?\s*/.exec(text);
  const body = fence ? text.slice(fence.index + fence[0].length) : text;
  const start = body.indexOf("[");
  if (start < 0) return [];
  const out: unknown[] = [];
  let depth = 0;
  let from = -1;
  let inString = false;
  for (let i = start + 1; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{") {
      if (depth === 0) from = i;
      depth++;
    } else if (c === "}" && depth > 0) {
      depth--;
      if (depth === 0) {
        try {
          out.push(JSON.parse(body.slice(from, i + 1)));
        } catch {
          // Not JSON after all: the list is read no further.
          return out;
        }
      }
    } else if (c === "]" && depth === 0) break;
  }
  return out;
}
