// Mined chains packaged as skills: the function and module come from Python (python/relm/skillmine/
// package.py); here the description for SKILL.md, the recorded run the smoke test replays, and the
// `_SMOKE_TEST` constant the applied package keeps. Deterministic: the same chain gives the same skill.
import { createHash } from "node:crypto";
import { isAbsolute, resolve } from "node:path";
import { LIMITS } from "../store/limits.js";
import type { Chain, Occurrence } from "./mine-chains.js";
import {
  type PackagedChain,
  type PackagedParameter,
  type PackageRequest,
  packageInPython,
  type Returns,
} from "./mine-python.js";

interface SmokeArgument {
  name: string;
  /** The recorded value, as written (Python source). */
  literal: string;
  role: PackagedParameter["role"];
  /** The value as a str, when it is one. */
  string: string | null;
}

export interface SmokeTest {
  /** The recorded run it replays. */
  occurrence: Occurrence;
  /** The call as recorded, e.g. `top_from_path(path="notes-c.txt")`. */
  call: string;
  args: SmokeArgument[];
  /** A line showing the returned value `_r` as the chain showed it ("_r", "print(_r)", or none). */
  show: string;
  /** What the function must print, shown value included: the recorded cells' outputs but the quiet ones. */
  expected: string;
  /** Files the recorded run read (relative to its working directory), which must still exist. */
  inputs: string[];
  /** Files the recorded run wrote (its parameters' values): the test writes them in the scratch copy. */
  writes: string[];
  /** The chain's last cell showed a value, so the function must return one (not None). */
  needsValue: boolean;
}

/** Who wrote a candidate's docstring: derived from the chain (and why), or the refine model. */
type DocstringSource = { by: "chain"; note: string } | { by: "model"; model: string };

export interface SkillCandidate {
  /** Module and function name. */
  name: string;
  description: string;
  parameters: PackagedParameter[];
  /** The package's __init__.py. */
  code: string;
  /** The def alone, for showing. */
  functionSource: string;
  docstring: string;
  docstringSource: DocstringSource;
  returns: Returns;
  chain: Chain;
  /** Marks the code so an applied candidate is recognised later (`relm-chain: …`). */
  signature: string;
  smoke: SmokeTest | { problem: string };
  /** What Python was asked: asked again with a model's docstring. */
  request: PackageRequest;
}

/** Why a derived docstring at --suggest is not the model's. */
const SUGGEST_DOCSTRING_NOTE = "no model is asked before `relm harness skills --apply`";

/**
 * Packages `chains` in one Python call. `taken` holds names already in use (other skills); `exists` says
 * whether a recorded input file is still there. A chain Python cannot package comes back with `problem`.
 */
export async function packageChains(
  python: string,
  chains: readonly Chain[],
  taken: ReadonlySet<string>,
  exists: (path: string) => boolean,
): Promise<{ candidates: SkillCandidate[]; failed: Chain[] }> {
  const requests = chains.map((chain) => packageRequest(chain, taken, SUGGEST_DOCSTRING_NOTE));
  const answers = await packageInPython(python, requests);
  const candidates: SkillCandidate[] = [];
  const failed: Chain[] = [];
  chains.forEach((chain, i) => {
    const answer = answers[i];
    const why = !answer ? "no answer" : "error" in answer ? answer.error : answer.problem;
    if (!answer || why || "error" in answer) {
      failed.push({ ...chain, problem: `it could not be packaged: ${why}` });
      return;
    }
    const request = requests[i] as PackageRequest;
    candidates.push(
      candidateOf(chain, answer, request, exists, { by: "chain", note: SUGGEST_DOCSTRING_NOTE }),
    );
  });
  return { candidates, failed };
}

/** The candidate packaged again with another docstring (the model's, or derived with another note). */
export async function withDocstring(
  python: string,
  candidate: SkillCandidate,
  docstring: { text: string; model: string } | { note: string },
  exists: (path: string) => boolean,
): Promise<SkillCandidate> {
  const request: PackageRequest = {
    ...candidate.request,
    name: candidate.name,
    ...("text" in docstring ? { docstring: docstring.text } : { docstring_note: docstring.note }),
  };
  const [answer] = await packageInPython(python, [request]);
  if (!answer || "error" in answer || answer.problem)
    throw new Error(
      `packaging ${candidate.name} again failed: ${answer && ("error" in answer ? answer.error : answer.problem)}`,
    );
  const source: DocstringSource =
    "text" in docstring ? { by: "model", model: docstring.model } : { by: "chain", note: docstring.note };
  return candidateOf(candidate.chain, answer, request, exists, source);
}

function packageRequest(chain: Chain, taken: ReadonlySet<string>, note: string): PackageRequest {
  const where = listed(chain.occurrences.map((o) => `${o.session} (journal events ${o.events.join(", ")})`));
  return {
    cells: chain.sources,
    occurrences: chain.occurrences.map((o) => ({ literals: o.literals })),
    varying: chain.varying.map((v) => v.slots),
    imports: chain.imports,
    taken: [...taken].sort(),
    module_doc: [
      `Seen ${timesOf(chain)}:`,
      ...where.map((w) => `  ${w}`),
      `relm-chain: ${chainSignature(chain)}`,
    ],
    times: timesOf(chain),
    docstring_note: note,
  };
}

function candidateOf(
  chain: Chain,
  packaged: PackagedChain,
  request: PackageRequest,
  exists: (path: string) => boolean,
  docstringSource: DocstringSource,
): SkillCandidate {
  const { name, parameters } = packaged;
  const args = parameters.map((p) => p.name).join(", ");
  let description = `${name}(${args}): ${packaged.summary}; packaged from a ${chain.length}-cell chain run ${timesOf(chain)}`;
  if (description.length > LIMITS.skill.chars)
    description = `${description.slice(0, LIMITS.skill.chars - 1)}…`;
  const smoke = smokeTest(chain, packaged, exists);
  return {
    name,
    description,
    parameters,
    code: "call" in smoke ? `${packaged.code}${smokeConstant(smoke)}` : packaged.code,
    functionSource: packaged.function_source,
    docstring: packaged.docstring,
    docstringSource,
    returns: packaged.returns,
    chain,
    signature: chainSignature(chain),
    smoke,
    request,
  };
}

function timesOf(chain: Chain): string {
  const s = chain.sessions.length;
  return `${chain.occurrences.length} times in ${s} session${s === 1 ? "" : "s"}`;
}

/** A short hash of the normalised chain, written into the skill's code (`relm-chain: …`). */
export function chainSignature(chain: Pick<Chain, "key">): string {
  return createHash("sha256").update(chain.key).digest("hex").slice(0, 12);
}

function smokeConstant(smoke: SmokeTest): string {
  const o = smoke.occurrence;
  return [
    "",
    "",
    "# The smoke test it passed before it was applied, in a scratch copy of the project: the call, and",
    "# what it printed with the value it returned shown as the chain showed it (docs/harness.md).",
    "_SMOKE_TEST = {",
    `    "call": ${JSON.stringify(smoke.call)},`,
    `    "output": ${JSON.stringify(smoke.expected)},`,
    `    "recorded": ${JSON.stringify(`${o.session}, journal events ${o.events.join(", ")}`)},`,
    "}",
    "",
  ].join("\n");
}

/** The newest recorded run whose output is whole and whose input files are still there. */
function smokeTest(
  chain: Chain,
  packaged: PackagedChain,
  exists: (path: string) => boolean,
): SmokeTest | { problem: string } {
  const problems: string[] = [];
  const quiet = new Set(packaged.quiet_cells);
  for (let k = chain.occurrences.length - 1; k >= 0; k--) {
    const o = chain.occurrences[k] as Occurrence;
    if (!o.complete) {
      problems.push(`${o.session}: its output was cut and the full text is gone`);
      continue;
    }
    const filesOf = (role: string) =>
      packaged.files.flatMap((f) =>
        f.role === role && f.strings[k] != null ? [f.strings[k] as string] : [],
      );
    const inputs = filesOf("read");
    const missing = inputs.filter((f) => !exists(isAbsolute(f) ? f : resolve(o.cwd, f)));
    if (missing.length > 0) {
      problems.push(`${o.session}: the recorded input ${missing.join(", ")} no longer exists in ${o.cwd}`);
      continue;
    }
    const args = packaged.parameters.map((p) => ({
      name: p.name,
      literal: p.values[k] as string,
      role: p.role,
      string: p.strings[k] ?? null,
    }));
    const last = o.outputs.at(-1) ?? "";
    return {
      occurrence: o,
      call: `${packaged.name}(${args.map((a) => `${a.name}=${a.literal}`).join(", ")})`,
      args,
      show: packaged.returns.show,
      expected: o.outputs.filter((_, i) => !quiet.has(i)).join(""),
      inputs,
      writes: filesOf("write"),
      needsValue:
        packaged.returns.kind === "print" ||
        (packaged.returns.kind === "display" && last.trim() !== "" && !packaged.last_cell_prints),
    };
  }
  return { problem: `it cannot be smoke-tested: ${problems.join("; ")}` };
}

/**
 * What a smoke test compares, on both sides: line ends as \n, no trailing spaces on a line or
 * blank lines at the end, memory addresses (0x7f…) and ISO timestamps replaced by placeholders.
 */
export function normaliseOutput(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\b0x[0-9a-fA-F]{6,}\b/g, "0x…")
    .replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, "<timestamp>")
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .replace(/\n+$/, "");
}

/** At most `max` items, the rest counted: a chain seen a thousand times is not listed a thousand times. */
export function listed(items: string[], max = 10): string[] {
  return items.length <= max ? items : [...items.slice(0, max), `… and ${items.length - max} more`];
}
