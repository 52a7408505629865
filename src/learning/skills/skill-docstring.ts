// A mined skill's docstring, written by the refine model (the cheaper one, when configured) from the
// packaged function and what its recorded run printed. Its answer is checked before it is used: plain text,
// not empty, not too long, naming every parameter; else the docstring derived from the chain stays.
import type { ModelClient, ModelRequest } from "../../llm/types.js";
import { callRefineModel, refineRequest } from "../refine/refine-call.js";
import type { SkillCandidate } from "./mine-package.js";

/** Fixed, like the refine prompt: every request starts with the same bytes. */
const DOCSTRING_SYSTEM = [
  "You write docstrings for Python functions that relm packaged from work an agent repeated in notebook",
  "cells. Answer with the docstring's text only: no quotes around it, no code fences, no other remarks.",
  "Its first line says in one sentence what the function does. Then an `Args:` section with one line per",
  "parameter, and a `Returns:` section. Say what the function reads and writes. At most 20 lines.",
].join("\n");

const MAX_CHARS = 2000;
const ANSWER_TOKENS = 800;
const TIME_MS = 90_000;

/** The words the test's scripted model (and a person reading the journal) recognise the request by. */
const DOCSTRING_ASK = "Write the docstring for the Python function";

function docstringRequest(candidate: SkillCandidate): ModelRequest {
  const args = candidate.parameters.map((p) => p.name).join(", ");
  const smoke = "call" in candidate.smoke ? candidate.smoke : undefined;
  const printed = smoke ? clip(smoke.expected, 1500) : "";
  const text = [
    `${DOCSTRING_ASK} \`${candidate.name}(${args})\` below. relm packaged it from a ${candidate.chain.length}-cell`,
    `chain an agent ran ${candidate.chain.occurrences.length} times; its current docstring was derived mechanically.`,
    "",
    "```python",
    candidate.functionSource,
    "```",
    ...(smoke ? ["", `The recorded run \`${smoke.call}\` printed:`, "```", printed, "```"] : []),
  ].join("\n");
  return refineRequest(DOCSTRING_SYSTEM, text, {
    maxOutputTokens: ANSWER_TOKENS,
    deadline: Date.now() + TIME_MS,
  });
}

/** The model's answer as a docstring, or why it cannot be one. */
export function parseDocstring(
  answer: string,
  parameters: readonly string[],
): { text: string } | { error: string } {
  let text = answer.trim();
  const fenced = /^```[\w-]*\n([\s\S]*?)\n```$/.exec(text);
  if (fenced) text = (fenced[1] as string).trim();
  const quoted = /^(?:[rR]?"""|''')([\s\S]*?)(?:"""|''')$/.exec(text);
  if (quoted) text = (quoted[1] as string).trim();
  if (text === "") return { error: "it answered with no text" };
  if (text.length > MAX_CHARS)
    return { error: `its answer is ${text.length} characters (at most ${MAX_CHARS})` };
  const missing = parameters.filter((p) => !new RegExp(`\\b${p}\\b`).test(text));
  if (missing.length > 0) return { error: `its docstring does not mention ${missing.join(", ")}` };
  return { text };
}

/** Asks `client` for the candidate's docstring; the answer checked, or why there is none. */
export async function writeDocstring(
  client: ModelClient,
  candidate: SkillCandidate,
): Promise<{ text: string; model: string } | { error: string }> {
  const call = await callRefineModel(client, docstringRequest(candidate), {
    signal: AbortSignal.timeout(TIME_MS),
  });
  if (call.status === "refused")
    return { error: `the refine model (${client.model}) was not asked: ${call.reason}` };
  if (call.status === "failed")
    return { error: call.error.replace(/^the refine model/, `the refine model (${client.model})`) };
  const parsed = parseDocstring(
    call.text,
    candidate.parameters.map((p) => p.name),
  );
  if ("error" in parsed)
    return { error: `the refine model's (${client.model}) answer was not used: ${parsed.error}` };
  return { text: parsed.text, model: client.model };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}
