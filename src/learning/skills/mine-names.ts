// What the names in a chain of cells are: bound by the chain (and free to be renamed between
// occurrences), bound but fixed (imports, parameters of a def or lambda), or taken from outside.
import { KEYWORDS, statements, type Token } from "./mine-tokens.js";

/** How a name token is used. Only "name" tokens are variables; the others are fixed words. */
type NameRole = "name" | "attribute" | "keyword-argument" | "module" | "keyword";

export interface ChainNames {
  /** Bound in the chain by assignment, for, with/except … as, def, class, import … as, := . */
  renamable: Set<string>;
  /** Bound in the chain but part of its meaning: `import json`, a def's or lambda's parameters. */
  fixed: Set<string>;
  /** Role of every name token, by the token object. */
  roles: Map<Token, NameRole>;
}

const COMPOUND = new Set(["if", "elif", "else", "while", "for", "with", "try", "except", "finally", "async"]);
const OPENERS = new Set(["(", "[", "{"]);

export function analyseNames(cells: readonly (readonly Token[])[]): ChainNames {
  const names: ChainNames = { renamable: new Set(), fixed: new Set(), roles: new Map() };
  for (const tokens of cells) {
    classifyRoles(tokens, names.roles);
    for (const statement of statements(tokens)) bindStatement(statement, names);
    bindLoopTargets(tokens, names);
  }
  return names;
}

function classifyRoles(tokens: readonly Token[], roles: Map<Token, NameRole>): void {
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.kind !== "name") continue;
    const prev = previousCode(tokens, k);
    const next = tokens[k + 1];
    if (KEYWORDS.has(t.text)) roles.set(t, "keyword");
    else if (prev?.text === "." && prev.kind === "op") roles.set(t, "attribute");
    else if (
      next?.kind === "op" &&
      next.text === "=" &&
      t.depth > 0 &&
      (prev?.text === "(" || prev?.text === ",")
    ) {
      roles.set(t, "keyword-argument");
    } else roles.set(t, "name");
  }
}

function previousCode(tokens: readonly Token[], k: number): Token | undefined {
  for (let j = k - 1; j >= 0; j--) if (tokens[j]?.kind !== "comment") return tokens[j];
  return undefined;
}

function bindStatement(statement: Token[], names: ChainNames): void {
  const first = statement[0];
  if (!first) return;
  if (first.text === "import" || first.text === "from") {
    bindImport(statement, names);
    return;
  }
  if (first.text === "@") return;
  const def = first.text === "async" ? 1 : 0;
  const head = statement[def];
  if (head?.text === "def" || head?.text === "class") {
    const name = statement[def + 1];
    if (name?.kind === "name") names.renamable.add(name.text);
    if (head.text === "def") bindParameters(statement, def + 2, names);
    return;
  }
  bindLambdas(statement, names);
  for (let k = 0; k < statement.length - 1; k++) {
    const t = statement[k] as Token;
    const next = statement[k + 1] as Token;
    if (t.kind === "name" && next.text === ":=") names.renamable.add(t.text);
    if (t.text === "as" && next.kind === "name") names.renamable.add(next.text);
  }
  if (COMPOUND.has(first.text)) {
    // `if x: y = 1` — the part after the header's colon is a statement of its own.
    const colon = statement.findIndex((t) => t.text === ":" && t.depth === first.depth && t !== first);
    if (colon > 0 && colon < statement.length - 1) bindStatement(statement.slice(colon + 1), names);
    return;
  }
  bindAssignment(statement, names);
}

function bindImport(statement: Token[], names: ChainNames): void {
  const from = statement[0]?.text === "from";
  let k = 1;
  if (from) {
    // The module path is fixed; the imported names follow `import`.
    for (; k < statement.length && statement[k]?.text !== "import"; k++) {
      const t = statement[k] as Token;
      if (t.kind === "name") names.roles.set(t, "module");
    }
    k++;
  }
  let itemStart = true;
  for (; k < statement.length; k++) {
    const t = statement[k] as Token;
    if (t.text === ",") {
      itemStart = true;
      continue;
    }
    if (t.kind !== "name") continue;
    if (t.text === "as") {
      const alias = statement[k + 1];
      if (alias?.kind === "name") {
        names.renamable.add(alias.text);
        names.roles.set(alias, "name");
      }
      k++;
      continue;
    }
    names.roles.set(t, "module");
    const aliased = aliasFollows(statement, k);
    if (itemStart && !aliased) names.fixed.add(t.text);
    itemStart = false;
  }
}

/** Whether the dotted name at `k` ends in `as ALIAS`. */
function aliasFollows(statement: Token[], k: number): boolean {
  let j = k + 1;
  while (statement[j]?.text === "." && statement[j + 1]?.kind === "name") j += 2;
  return statement[j]?.text === "as";
}

/** `def f(a, b=1, *args, c: int = 2, **kw)`: the parameter names, from the `(` at `open`. */
function bindParameters(statement: Token[], open: number, names: ChainNames): void {
  const paren = statement[open];
  if (paren?.text !== "(") return;
  const inner = paren.depth + 1;
  for (let k = open + 1; k < statement.length; k++) {
    const t = statement[k] as Token;
    if (t.text === ")" && t.depth === inner - 1) break;
    if (t.kind !== "name" || t.depth !== inner) continue;
    const prev = statement[k - 1]?.text;
    if (prev === "(" || prev === "," || prev === "*" || prev === "**") {
      names.fixed.add(t.text);
      names.roles.set(t, "name");
    }
  }
}

function bindLambdas(statement: Token[], names: ChainNames): void {
  for (let k = 0; k < statement.length; k++) {
    if (statement[k]?.text !== "lambda") continue;
    const depth = statement[k]?.depth;
    for (let j = k + 1; j < statement.length; j++) {
      const t = statement[j] as Token;
      if (t.text === ":" && t.depth === depth) break;
      if (t.kind === "name" && t.depth === depth) {
        names.fixed.add(t.text);
        names.roles.set(t, "name");
      }
    }
  }
}

/** `a, (b, c) = …`, `x: int = …`, `a = b = …`: names in every target (not attributes or subscripts). */
function bindAssignment(statement: Token[], names: ChainNames): void {
  const base = statement[0]?.depth ?? 0;
  const equals = statement.flatMap((t, k) =>
    t.kind === "op" && t.text === "=" && t.depth === base ? [k] : [],
  );
  const annotated =
    statement[0]?.kind === "name" && statement[1]?.text === ":" && statement[1].depth === base;
  if (annotated) names.renamable.add((statement[0] as Token).text);
  let start = 0;
  for (const end of equals) {
    bindTarget(statement.slice(start, end), names);
    start = end + 1;
  }
}

function bindTarget(target: Token[], names: ChainNames): void {
  // Per open bracket: is it a tuple/list display (its names are targets) or a call/subscript?
  const displays: boolean[] = [];
  for (let k = 0; k < target.length; k++) {
    const t = target[k] as Token;
    const prev = target[k - 1];
    if (t.kind === "op" && OPENERS.has(t.text)) {
      const afterValue =
        prev !== undefined && (prev.kind === "name" || prev.text === ")" || prev.text === "]");
      displays.push(!afterValue && t.text !== "{");
      continue;
    }
    if (t.kind === "op" && (t.text === ")" || t.text === "]" || t.text === "}")) {
      displays.pop();
      continue;
    }
    if (t.kind === "op" && t.text === ":" && displays.length === 0) return; // an annotation follows
    if (t.kind !== "name" || KEYWORDS.has(t.text)) continue;
    if (prev?.text === ".") continue;
    const next = target[k + 1]?.text;
    if (next === "." || next === "[" || next === "(") continue;
    if (displays.every(Boolean)) names.renamable.add(t.text);
  }
}

/** `for TARGET in` anywhere (statements and comprehensions). */
function bindLoopTargets(tokens: readonly Token[], names: ChainNames): void {
  for (let k = 0; k < tokens.length; k++) {
    if (tokens[k]?.text !== "for" || tokens[k]?.kind !== "name") continue;
    const depth = tokens[k]?.depth;
    let j = k + 1;
    while (j < tokens.length && !(tokens[j]?.text === "in" && tokens[j]?.depth === depth)) j++;
    bindTarget(tokens.slice(k + 1, j) as Token[], names);
  }
}

/** Names the chain reads that it does not bind: from builtins, earlier cells, or nowhere. */
export function freeNames(cells: readonly (readonly Token[])[], names: ChainNames): string[] {
  const out = new Set<string>();
  for (const tokens of cells) {
    for (const t of tokens) {
      if (t.kind !== "name" || names.roles.get(t) !== "name") continue;
      if (names.renamable.has(t.text) || names.fixed.has(t.text)) continue;
      out.add(t.text);
    }
  }
  return [...out];
}
