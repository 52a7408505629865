// A mined chain packaged as a skill: a function with a docstring, the package source, a one-line
// description for SKILL.md, and a smoke test built from one recorded run. Deterministic templates
// only (no model): the same chain always gives the same skill.
import { createHash } from "node:crypto";
import { isAbsolute, resolve } from "node:path";
import { oneLine } from "../../config/text.js";
import { LIMITS } from "../store/limits.js";
import type { Chain, Occurrence } from "./mine-chains.js";
import { functionBody } from "./mine-code.js";
import { KEYWORDS, literalValue, statements, type Token } from "./mine-tokens.js";

interface SkillParameter {
  name: string;
  /** Literal slots (indices into the chain's literals) the parameter replaces. */
  slots: number[];
  /** How the name was chosen, for the docstring: "bound to `path`", "passed as sep=", … */
  origin: string;
  /** The value each occurrence used, as written (Python source). */
  values: string[];
}

export interface SmokeTest {
  /** The recorded run it replays. */
  occurrence: Occurrence;
  /** The cell run in a fresh forked kernel. */
  cell: string;
  /** The call alone, e.g. `words_from_path(path='b.txt')`. */
  call: string;
  /** The recorded output of the chain; compared after normaliseOutput(). */
  expected: string;
  /** Files the recorded run read (relative to its working directory), which must still exist. */
  inputs: string[];
}

export interface SkillCandidate {
  /** Module and function name. */
  name: string;
  description: string;
  parameters: SkillParameter[];
  /** The package's __init__.py. */
  code: string;
  /** The def alone, for showing. */
  functionSource: string;
  chain: Chain;
  /** Marks the code so an applied candidate is recognised later (`relm-chain: …`). */
  signature: string;
  smoke: SmokeTest | { problem: string };
}

const READERS = /^(?:open|read\w*|load\w*|Path|loadtxt|genfromtxt|imread|parse)$/;
const DULL_CALLS = new Set(
  "print len str int float list dict set tuple sorted open range enumerate zip repr type isinstance _show".split(
    " ",
  ),
);

/**
 * Packages `chain`. `sources` are its first occurrence's cells; `taken` holds names already in use
 * (other skills, other candidates); `exists` says whether a recorded input file is still there.
 */
export function packageChain(
  chain: Chain,
  sources: readonly string[],
  taken: ReadonlySet<string>,
  exists: (path: string) => boolean,
): SkillCandidate {
  const reads = readSlots(chain);
  const parameters = nameParameters(chain, reads);
  const slotNames = new Map(parameters.flatMap((p) => p.slots.map((s) => [s, p.name] as const)));
  const body = functionBody(chain, sources, slotNames);
  const name = uniqueName(functionName(chain, parameters), taken);
  const signature = chainSignature(chain);
  const where = listed(chain.occurrences.map((o) => `${o.session} (journal events ${o.events.join(", ")})`));
  const summary = summaryOf(chain);
  const times = `${chain.occurrences.length} times in ${chain.sessions.length} session${chain.sessions.length === 1 ? "" : "s"}`;
  const args = parameters.map((p) => p.name).join(", ");
  let description = `${name}(${args}): ${summary}; packaged from a ${chain.length}-cell chain run ${times}`;
  if (description.length > LIMITS.skill.chars)
    description = `${description.slice(0, LIMITS.skill.chars - 1)}…`;
  const doc = [
    `    """${docText(capitalise(summary))}.`,
    "",
    `    The ${chain.length} cells below ran ${times}; literals that differed became parameters.`,
    ...(parameters.length > 0 ? ["", "    Parameters:"] : []),
    ...parameters.map(
      (p) =>
        `        ${p.name}: ${docText(`${p.origin}; recorded values ${[...new Set(p.values)].join(", ")}`)}`,
    ),
    "",
    body.returns
      ? `    Returns the value of \`${docText(oneLine(body.returns, 120))}\` (what the last cell showed).`
      : "    Returns None; what the cells printed is printed.",
    '    """',
  ];
  const functionSource = [`def ${name}(${args}):`, ...doc, ...body.lines].join("\n");
  const code = [
    `"""${name}: a skill relm packaged from repeated work (\`relm harness skills --suggest\`).`,
    "",
    `Seen ${times}:`,
    ...where.map((w) => `  ${w}`),
    `relm-chain: ${signature}`,
    '"""',
    "",
    ...chain.imports,
    ...(chain.imports.length > 0 ? [""] : []),
    `__all__ = ["${name}"]`,
    "",
    "",
    functionSource,
    ...(body.shows ? ["", "", ...SHOW_HELPER] : []),
    "",
  ].join("\n");
  const candidate: SkillCandidate = {
    name,
    description,
    parameters,
    code,
    functionSource,
    chain,
    signature,
    smoke: { problem: "" },
  };
  candidate.smoke = smokeTest(candidate, reads, exists);
  if ("cell" in candidate.smoke) candidate.code = `${code}${smokeConstant(candidate.smoke)}`;
  return candidate;
}

/** A short hash of the normalised chain, written into the skill's code (`relm-chain: …`). */
export function chainSignature(chain: Pick<Chain, "key">): string {
  return createHash("sha256").update(chain.key).digest("hex").slice(0, 12);
}

const SHOW_HELPER = [
  "def _show(value):",
  '    """Prints a value as the kernel showed an earlier cell\'s last expression (IPython\'s text form)."""',
  "    if value is None:",
  "        return",
  "    try:",
  "        from IPython import get_ipython",
  "",
  "        shell = get_ipython()",
  "    except ImportError:",
  "        shell = None",
  "    if shell is not None:",
  '        text = shell.display_formatter.format(value)[0].get("text/plain")',
  "        if text is not None:",
  "            print(text)",
  "            return",
  "    print(repr(value))",
];

function smokeConstant(smoke: SmokeTest): string {
  const o = smoke.occurrence;
  return [
    "",
    "",
    "# The smoke test it passed before it was applied, in a fresh forked kernel in the project folder:",
    "# the call, and what it must print (compared after relm's output normalisation, docs/harness.md).",
    "_SMOKE_TEST = {",
    `    "call": ${JSON.stringify(smoke.call)},`,
    `    "output": ${JSON.stringify(smoke.expected)},`,
    `    "recorded": ${JSON.stringify(`${o.session}, journal events ${o.events.join(", ")}`)},`,
    "}",
    "",
  ].join("\n");
}

/**
 * Slots holding a file the chain reads: the first argument of open(…) (not for writing), read_*(…),
 * load*(…), Path(…), directly or through a name the literal was bound to.
 */
function readSlots(chain: Chain): Set<number> {
  const slotOf = new Map(chain.literalTokens.map((t, i) => [t, i]));
  const boundTo = new Map<string, number[]>();
  for (const tokens of chain.cells) {
    for (const s of statements(tokens)) {
      const slot = s.length === 3 && s[1]?.text === "=" ? slotOf.get(s[2] as Token) : undefined;
      if (slot !== undefined && s[0]?.kind === "name")
        boundTo.set(s[0].text, [...(boundTo.get(s[0].text) ?? []), slot]);
    }
  }
  const out = new Set<number>();
  for (const tokens of chain.cells) {
    for (let k = 0; k + 2 < tokens.length; k++) {
      const callee = tokens[k] as Token;
      if (callee.kind !== "name" || !READERS.test(callee.text) || tokens[k + 1]?.text !== "(") continue;
      const arg = tokens[k + 2] as Token;
      if (callee.text === "open" && writes(tokens, k + 1)) continue;
      const slot = slotOf.get(arg);
      if (slot !== undefined && arg.kind === "string") out.add(slot);
      else if (arg.kind === "name") for (const s of boundTo.get(arg.text) ?? []) out.add(s);
    }
  }
  return out;
}

/** open(x, "w") / mode="a" / "x": the file is written, not read. */
function writes(tokens: readonly Token[], open: number): boolean {
  const depth = (tokens[open] as Token).depth + 1;
  for (let k = open + 1; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.depth < depth) return false;
    if (t.kind === "string" && t.depth === depth && k > open + 1 && /^[rb]*['"][rbt+]*[wax]/i.test(t.text))
      return true;
  }
  return false;
}

function nameParameters(chain: Chain, reads: Set<number>): SkillParameter[] {
  const firstUse = new Map<string, Token>();
  for (const t of chain.cells.flat()) {
    // Attributes and keyword-argument names are not variables: `sep` may name the sep= parameter.
    const role = chain.names.roles.get(t);
    if (t.kind === "name" && (role === "name" || role === "module") && !firstUse.has(t.text))
      firstUse.set(t.text, t);
  }
  const used = new Set(firstUse.keys());
  const chosen = new Set<string>();
  return chain.varying.map(({ slots }) => {
    const slot = slots[0] as number;
    const named = nameFor(chain, slot, reads);
    const { name, origin } = named;
    // The variable's own name only where this assignment is its first use (else it means something else).
    const own = named.target && firstUse.get(named.target.text) === named.target ? named.own : undefined;
    let unique = name;
    for (let n = 2; chosen.has(unique) || KEYWORDS.has(unique) || (used.has(unique) && unique !== own); n++)
      unique = `${name}_${n}`;
    chosen.add(unique);
    return {
      name: unique,
      slots,
      origin,
      values: chain.occurrences.map((o) => o.literals[slot] as string),
    };
  });
}

/** A parameter's name from where its literal sat; `own` is the variable it was bound to, if any. */
function nameFor(
  chain: Chain,
  slot: number,
  reads: Set<number>,
): { name: string; origin: string; own?: string; target?: Token } {
  const token = chain.literalTokens[slot] as Token;
  const tokens = chain.cells.find((c) => c.includes(token)) as Token[];
  const k = tokens.indexOf(token);
  const prev = tokens[k - 1];
  const before = tokens[k - 2];
  const statement = statements(tokens).find((s) => s.includes(token)) ?? [];
  if (statement.length === 3 && statement[1]?.text === "=" && statement[0]?.kind === "name") {
    const own = identifier(statement[0].text);
    return { name: own, origin: `was bound to \`${statement[0].text}\``, own, target: statement[0] };
  }
  if (prev?.text === "=" && before?.kind === "name" && token.depth > 0) {
    return { name: identifier(before.text), origin: `was passed as ${before.text}=` };
  }
  if (reads.has(slot)) return { name: "path", origin: "the file the chain read" };
  if (token.kind === "number") return { name: "n", origin: "a number in the chain" };
  return { name: "text", origin: "a string in the chain" };
}

function identifier(text: string): string {
  const snake = text
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, "_")
    .replace(/^_+/, "");
  return /^[a-z]/.test(snake) ? snake.slice(0, 40) : `v_${snake}`.slice(0, 40);
}

/** `<the last variable the chain made>_from_<first parameter>`, e.g. words_from_path. */
function functionName(chain: Chain, parameters: SkillParameter[]): string {
  let made: string | undefined;
  let called: string | undefined;
  for (const tokens of chain.cells) {
    for (let k = 0; k < tokens.length; k++) {
      const t = tokens[k] as Token;
      const next = tokens[k + 1];
      if (t.kind !== "name" || chain.names.roles.get(t) === "keyword") continue;
      // One- and two-letter names (n, df, i) say too little to name a function by.
      if (next?.text === "=" && t.depth === 0 && chain.names.renamable.has(t.text) && t.text.length > 2)
        made = t.text;
      if (next?.text === "(" && !DULL_CALLS.has(t.text)) called = t.text;
    }
  }
  const first = parameters[0]?.name;
  const thing = identifier(made && made !== first ? made : (called ?? "chain"));
  const name = first ? `${thing}_from_${first}` : `compute_${thing}`;
  return name.slice(0, 40).replace(/_+$/, "");
}

function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) {
    const next = `${name.slice(0, 37)}_${n}`;
    if (!taken.has(next)) return next;
  }
}

/** The chain's first whole-line comment, else the calls it makes: deterministic and checkable. */
function summaryOf(chain: Chain): string {
  // A comment at the end of a line annotates that line; one on its own line says what follows.
  const comment = chain.cells
    .flatMap((tokens) =>
      tokens.filter((t, k) => t.kind === "comment" && (k === 0 || tokens[k - 1]?.kind === "newline")),
    )
    .find((t) => t.text.replace(/^#\s*/, "").length > 3);
  if (comment) return oneLine(comment.text.replace(/^#+\s*/, ""), 120).replace(/[.:]$/, "");
  const calls: string[] = [];
  for (const tokens of chain.cells) {
    tokens.forEach((t, k) => {
      if (t.kind === "name" && tokens[k + 1]?.text === "(" && !calls.includes(t.text) && t.text !== "print")
        calls.push(t.text);
    });
  }
  return calls.length > 0 ? `calls ${calls.slice(0, 6).join(", ")}` : "runs a repeated chain of cells";
}

function smokeTest(
  candidate: SkillCandidate,
  reads: Set<number>,
  exists: (path: string) => boolean,
): SmokeTest | { problem: string } {
  const { chain, parameters, name } = candidate;
  const problems: string[] = [];
  // The newest recorded run first: its files are the likeliest to be there as they were.
  for (const o of [...chain.occurrences].reverse()) {
    if (!o.complete) {
      problems.push(`${o.session}: its output was cut and the full text is gone`);
      continue;
    }
    const inputs = [...reads].flatMap((slot) => {
      const token = chain.literalTokens[slot] as Token;
      const value = literalValue({ ...token, text: o.literals[slot] as string });
      return value.startsWith("str:") ? [value.slice(4)] : [];
    });
    const missing = inputs.filter((f) => !exists(isAbsolute(f) ? f : resolve(o.cwd, f)));
    if (missing.length > 0) {
      problems.push(`${o.session}: the recorded input ${missing.join(", ")} no longer exists in ${o.cwd}`);
      continue;
    }
    const call = `${name}(${parameters.map((p) => `${p.name}=${o.literals[p.slots[0] as number]}`).join(", ")})`;
    return { occurrence: o, cell: `import ${name}\n${name}.${call}`, call, expected: o.output, inputs };
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

/** Text safe inside a """docstring""": backslashes doubled, triple quotes broken up. */
function docText(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"""');
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
