// Finds chains of consecutive cells that recur with small variations across a project's sessions.
// Deterministic: the same journals always give the same chains, in the same order, with the cells
// each came from. See docs/harness.md "Skills from repeated work".
import type { CellAnalysis } from "./mine-python.js";

/** One cell as a journal recorded it. */
export interface RecordedCell {
  /** The `cell` event's number in its journal. */
  event: number;
  code: string;
  /** What the cell printed (the full text when the journal kept it aside). */
  output: string;
  /** Ran to the end without an exception (status "ok", no failing `!command`). */
  ok: boolean;
  /** False when the output was cut and the full text is gone: it cannot be a smoke test's answer. */
  complete?: boolean;
}

/** The cells of one agent's journal, in order. */
export interface RecordedSession {
  /** Session id; a child is named by its path, e.g. `4f8k2m1a/children/9d2x…`. */
  id: string;
  cwd: string;
  cells: RecordedCell[];
}

/** A chain is 2 to 5 cells long. */
const MIN_LENGTH = 2;
const MAX_LENGTH = 5;
/** Chains with fewer code tokens are too small to be worth a function. */
const MIN_TOKENS = 10;
/** Chains whose occurrences differ in more literals than this are different work. */
const MAX_PARAMETERS = 4;

/** Where a chain was seen: which session, which cells (by index and journal event number). */
export interface Occurrence {
  session: string;
  cwd: string;
  /** Index of its first cell in the session's cells. */
  start: number;
  events: number[];
  /** Every literal of the chain, as this occurrence wrote it (source text), in chain order. */
  literals: string[];
  /** What each cell printed. */
  outputs: string[];
  /** Whether every cell's output is what it printed in full. */
  complete: boolean;
}

/** Literals that vary between occurrences and always vary together: one parameter. */
interface VaryingLiteral {
  /** Indices into the chain's literals. */
  slots: number[];
}

export interface Chain {
  /** The normalised chain: its cells with literals and bound names abstracted. */
  key: string;
  length: number;
  occurrences: Occurrence[];
  sessions: string[];
  /** The first occurrence's cells: the code a function is built from. */
  sources: string[];
  varying: VaryingLiteral[];
  /** Names read from outside the chain that are neither builtins nor imported: the chain needs them. */
  unresolved: string[];
  /** `import …` statements of earlier cells that the chain relies on (e.g. `import json`). */
  imports: string[];
  /** Why no skill is proposed for it, when none is. */
  problem?: string;
}

interface MineResult {
  /** Chains a skill can be made of, most repeated work first. */
  chains: Chain[];
  /** Repeated chains no skill is proposed for, with the reason (in `problem`). */
  skipped: Chain[];
}

/** relm's pre-imported names (python/relm/api.py EXPORTS): a package imports them from relm.api. */
const RELM_EXPORTS = new Set([
  "submit",
  "rlm",
  "llm",
  "send",
  "inbox",
  "schedule",
  "goal",
  "done",
  "harness",
]);

interface PreparedCell {
  cell: RecordedCell;
  /** What Python read of its code (python/relm/skillmine/cells.py). */
  code: CellAnalysis;
  /** Names this cell binds (renamable ones); a window's are the union of its cells'. */
  binds: Set<string>;
  /** The pieces with every variable as `_`: equal for any two cells whose normalised forms can be equal. */
  shape: string;
}

interface Window {
  session: number;
  start: number;
  length: number;
}

/**
 * The chains of `sessions`; `analysed` holds what Python read of every cell's code (mine-python.ts
 * analyseCells), keyed by the code.
 */
export function mineChains(
  sessions: readonly RecordedSession[],
  analysed: ReadonlyMap<string, CellAnalysis>,
): MineResult {
  const prepare = preparer(analysed);
  const prepared = sessions.map((s) => s.cells.map(prepare));
  const imports = prepared.map(sessionImports);
  // First by the cells' shapes (cheap: ids of interned strings), then, only where two or more windows
  // share a shape, by the full normalised key: most windows of a history are unique.
  const shapes = new Map<string, number>();
  const shapeIds = prepared.map((cells) =>
    cells.map((c) => {
      const id = shapes.get(c.shape) ?? shapes.size;
      shapes.set(c.shape, id);
      return id;
    }),
  );
  const coarse = new Map<string, Window[]>();
  prepared.forEach((cells, session) => {
    for (let length = MIN_LENGTH; length <= MAX_LENGTH; length++) {
      for (let start = 0; start + length <= cells.length; start++) {
        const window = cells.slice(start, start + length);
        if (window.some((c) => !c.cell.ok || c.code.problem)) continue;
        if (window.reduce((n, c) => n + c.code.size, 0) < MIN_TOKENS) continue;
        const key = `${length}:${shapeIds[session]?.slice(start, start + length).join(",")}`;
        pushTo(coarse, key, { session, start, length });
      }
    }
  });
  const groups = new Map<string, Window[]>();
  for (const windows of coarse.values()) {
    if (windows.length < 2) continue;
    for (const w of windows) {
      const key = windowKey((prepared[w.session] as PreparedCell[]).slice(w.start, w.start + w.length));
      pushTo(groups, key, w);
    }
  }
  const repeated: { key: string; windows: Window[] }[] = [];
  for (const [key, windows] of groups) {
    const kept = nonOverlapping(windows);
    const distinct = new Set(kept.map((w) => w.session)).size;
    if (distinct >= 2 || kept.length >= 3) repeated.push({ key, windows: kept });
  }
  const chains = repeated.map(({ key, windows }) => describeChain(key, windows, sessions, prepared, imports));
  const usable = chains.filter((c) => !c.problem);
  const starts = new Map(chains.map((c) => [c, startsBySession(c)]));
  const keep = (c: Chain, among: Chain[]) =>
    !among.some((other) => other !== c && covers(other, starts.get(other) as Starts, c));
  const order = (a: Chain, b: Chain) =>
    b.occurrences.length * b.length - a.occurrences.length * a.length ||
    firstSeen(a) - firstSeen(b) ||
    a.key.localeCompare(b.key);
  return {
    chains: usable.filter((c) => keep(c, usable)).sort(order),
    skipped: chains.filter((c) => c.problem && keep(c, chains)).sort(order),
  };

  function firstSeen(c: Chain): number {
    const o = c.occurrences[0] as Occurrence;
    return sessions.findIndex((s) => s.id === o.session) * 1e6 + o.start;
  }
}

/** Adds `item` to the list `map` keeps under `key`. */
function pushTo<T>(map: Map<string, T[]>, key: string, item: T): void {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}

// Everything about a cell that does not depend on the window is worked out once per distinct code.
function preparer(analysed: ReadonlyMap<string, CellAnalysis>): (cell: RecordedCell) => PreparedCell {
  const shapes = new Map<string, { binds: Set<string>; shape: string }>();
  return (cell) => {
    const code = analysed.get(cell.code);
    if (!code) throw new Error("mineChains: a cell was not analysed (analyseCells first)");
    let known = shapes.get(cell.code);
    if (!known) {
      const shape = code.pieces.map((p) => (typeof p === "string" ? p : "_")).join(" ");
      known = { binds: new Set(code.binds), shape };
      shapes.set(cell.code, known);
    }
    return { cell, code, binds: known.binds, shape: known.shape };
  };
}

function windowKey(cells: readonly PreparedCell[]): string {
  const binds = new Set(cells.flatMap((c) => [...c.binds]));
  const renamed = new Map<string, string>();
  const parts: string[] = [];
  for (const cell of cells) {
    if (parts.length > 0) parts.push("\n--cell--\n");
    for (const p of cell.code.pieces) {
      if (typeof p === "string") parts.push(p);
      else if (!binds.has(p.n)) parts.push(p.n);
      else {
        let to = renamed.get(p.n);
        if (to === undefined) {
          to = `$${renamed.size + 1}`;
          renamed.set(p.n, to);
        }
        parts.push(to);
      }
    }
  }
  return parts.join(" ");
}

/**
 * The normalised form of a window: comments and spacing dropped, string and number literals replaced
 * by their kind, names the chain binds replaced by their order of first use ($1, $2 …), indentation
 * kept as levels. Two windows with the same key differ only in literals and in consistently renamed
 * variables.
 * @testing the tests say which windows are the same chain through it.
 */
export function chainKey(cells: readonly string[], analysed: ReadonlyMap<string, CellAnalysis>): string {
  const prepare = preparer(analysed);
  return windowKey(cells.map((code) => prepare({ event: 0, code, output: "", ok: true })));
}

/** Occurrences in one session may not share cells: the earliest wins. */
function nonOverlapping(windows: Window[]): Window[] {
  const out: Window[] = [];
  const sorted = [...windows].sort((a, b) => a.session - b.session || a.start - b.start);
  for (const w of sorted) {
    const last = out.at(-1);
    if (last && last.session === w.session && w.start < last.start + last.length) continue;
    out.push(w);
  }
  return out;
}

/** Per session, the sorted first-cell indices of a chain's occurrences. */
type Starts = Map<string, number[]>;

function startsBySession(chain: Chain): Starts {
  const out: Starts = new Map();
  for (const o of chain.occurrences) pushTo(out, o.session, o.start);
  return out;
}

/** `outer` is longer and each of `inner`'s occurrences lies within one of its occurrences. */
function covers(outer: Chain, outerStarts: Starts, inner: Chain): boolean {
  if (outer.length <= inner.length) return false;
  const slack = outer.length - inner.length;
  return inner.occurrences.every((o) => {
    const list = outerStarts.get(o.session);
    if (!list) return false;
    // The last outer occurrence starting at or before o: they never overlap, so only it can hold o.
    let lo = 0;
    let hi = list.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((list[mid] as number) <= o.start) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && o.start - (list[found] as number) <= slack;
  });
}

function literalsOf(cells: readonly PreparedCell[]): CellAnalysis["literals"] {
  return cells.flatMap((c) => c.code.literals);
}

function describeChain(
  key: string,
  windows: Window[],
  sessions: readonly RecordedSession[],
  prepared: PreparedCell[][],
  sessionImportsOf: SessionImports[],
): Chain {
  const first = windows[0] as Window;
  const cellsOf = (w: Window) => (prepared[w.session] as PreparedCell[]).slice(w.start, w.start + w.length);
  const occurrences = windows.map((w): Occurrence => {
    const cells = cellsOf(w);
    const session = sessions[w.session] as RecordedSession;
    return {
      session: session.id,
      cwd: session.cwd,
      start: w.start,
      events: cells.map((c) => c.cell.event),
      literals: literalsOf(cells).map((l) => l.text),
      outputs: cells.map((c) => c.cell.output),
      complete: cells.every((c) => c.cell.complete !== false),
    };
  });
  const cells = cellsOf(first);
  const values = windows.map((w) => literalsOf(cellsOf(w)).map((l) => l.key));
  const varying = varyingLiterals(values);
  const free = chainFreeNames(cells);
  const outside = free.filter((n) => !RELM_EXPORTS.has(n));
  const imports = importsBefore(outside, windows, sessionImportsOf);
  const unresolved = outside.filter((n) => !imports.has(n));
  const chain: Chain = {
    key,
    length: first.length,
    occurrences,
    sessions: [...new Set(occurrences.map((o) => o.session))],
    sources: cells.map((c) => c.cell.code),
    varying,
    unresolved,
    imports: neededImports(free, imports),
  };
  if (unresolved.length > 0) {
    chain.problem = `reads ${unresolved.map((n) => `\`${n}\``).join(", ")}, made by earlier cells, not by the chain`;
  } else if (varying.length > MAX_PARAMETERS) {
    chain.problem = `its occurrences differ in ${varying.length} literals (at most ${MAX_PARAMETERS} make one skill)`;
  }
  return chain;
}

/** Slots whose values differ between occurrences, grouped when they always hold the same values. */
function varyingLiterals(values: readonly string[][]): VaryingLiteral[] {
  const slots = values[0]?.length ?? 0;
  const groups = new Map<string, number[]>();
  for (let s = 0; s < slots; s++) {
    const column = values.map((v) => v[s] ?? "");
    if (column.every((v) => v === column[0])) continue;
    pushTo(groups, JSON.stringify(column), s);
  }
  return [...groups.values()].map((slotList) => ({ slots: slotList }));
}

/** Where a session first imports each name at top level: cell index and the statement's text. */
type SessionImports = Map<string, { index: number; text: string }>;

function sessionImports(cells: readonly PreparedCell[]): SessionImports {
  const found: SessionImports = new Map();
  cells.forEach((cell, index) => {
    if (!cell.cell.ok) return;
    for (const statement of cell.code.imports) {
      for (const name of statement.names)
        if (!found.has(name)) found.set(name, { index, text: statement.text });
    }
  });
  return found;
}

/** Names the chain reads before any of its cells binds them: it needs them from outside. */
function chainFreeNames(cells: readonly PreparedCell[]): string[] {
  const bound = new Set<string>();
  const out = new Set<string>();
  for (const cell of cells) {
    for (const name of cell.code.free) if (!bound.has(name)) out.add(name);
    for (const name of cell.code.bound) bound.add(name);
  }
  return [...out];
}

/** Of `names`, those some occurrence's session imported before it (`json` → "import json"). */
function importsBefore(names: string[], windows: Window[], imports: SessionImports[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of names) {
    for (const w of windows) {
      const at = imports[w.session]?.get(name);
      if (at && at.index < w.start) {
        found.set(name, at.text);
        break;
      }
    }
  }
  return found;
}

function neededImports(free: readonly string[], imports: Map<string, string>): string[] {
  const lines = new Set<string>();
  for (const n of free) {
    const line = imports.get(n);
    if (line) lines.add(line);
    else if (RELM_EXPORTS.has(n)) lines.add(`from relm.api import ${n}`);
  }
  return [...lines].sort();
}
