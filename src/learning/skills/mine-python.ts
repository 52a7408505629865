// The code side of mining, in Python (python/relm/skillmine/): cells are read with Python's own tokenize and
// ast, and chains are packaged into functions there. One `python -I` process per request, with the
// interpreter relm found for its kernels; the code it reads is parsed, never run.
import { spawn } from "node:child_process";
import { RELM_PYTHON_DIR } from "../../kernel/index.js";

/** What python/relm/skillmine/cells.py tells of one cell. */
export interface CellAnalysis {
  /** Why the cell cannot become part of a function (a magic, `!cmd`, top-level await, not Python). */
  problem?: string;
  /** Code tokens (no comments or line ends): the cell's size. */
  size: number;
  /** The normalised tokens: a string is fixed; `{ n }` is a variable, renamed when the chain binds it. */
  pieces: (string | { n: string })[];
  /** Names the cell binds that may be renamed between occurrences. */
  binds: string[];
  /** Names bound at the cell's top level: what later cells can read. */
  bound: string[];
  /** Names read before the cell binds them (builtins left out), in order. */
  free: string[];
  /** Number and string literals (not f-strings), in order: source text and a value key. */
  literals: { text: string; key: string }[];
  /** Top-level imports: the names each binds, and its source. */
  imports: { names: string[]; text: string }[];
}

/** One chain to package (python/relm/skillmine/package.py). */
export interface PackageRequest {
  /** The first occurrence's cells. */
  cells: string[];
  /** Each occurrence's literals (source text), in chain order. */
  occurrences: { literals: string[] }[];
  /** Literal slots that varied, grouped: one parameter each. */
  varying: number[][];
  /** Import lines the chain needs from earlier cells (and relm.api). */
  imports: string[];
  /** Names the function may not take. */
  taken: string[];
  /** The function's name, when it has one already (packaged again). */
  name?: string;
  /** The module docstring's lines. */
  module_doc: string[];
  /** "3 times in 2 sessions", for the derived docstring. */
  times: string;
  /** A docstring to use (a model's); without it one is derived from the chain. */
  docstring?: string;
  /** Why the docstring is derived, said in it. */
  docstring_note?: string;
}

type ParameterRole = "read" | "write" | "value";

export interface PackagedParameter {
  name: string;
  slots: number[];
  origin: string;
  role: ParameterRole;
  /** Each occurrence's value, as written (Python source). */
  values: string[];
  /** Each occurrence's value as a str, or null (a number, bytes). */
  strings: (string | null)[];
}

/** How the chain's last statement became the function's return, and how the test shows it again. */
export interface Returns {
  kind: "display" | "print" | "silent" | "assigned" | "none";
  expr: string | null;
  /** A cell line that shows `_r` (the returned value) as the chain showed it: "_r", "print(_r)", "". */
  show: string;
}

export interface PackagedChain {
  name: string;
  summary: string;
  parameters: PackagedParameter[];
  function_source: string;
  code: string;
  docstring: string;
  returns: Returns;
  /** Cells whose recorded output the function no longer prints (they only displayed a value). */
  quiet_cells: number[];
  /** Literals naming a file the chain reads or writes, with each occurrence's value as a str. */
  files: { slot: number; role: "read" | "write"; strings: (string | null)[] }[];
  /** The last cell printed besides its last statement. */
  last_cell_prints: boolean;
  /** Why the generated code cannot be used (it does not compile). */
  problem: string | null;
}

// -I: no user site, no PYTHON* variables, no current directory on sys.path; relm's package is put first.
const BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from relm.skillmine.cli import main; main()";

/** Runs one request through python/relm/skillmine/cli.py and returns its answer. */
function runSkillMine<T>(python: string, request: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "" };
    if (process.env.SYSTEMROOT) env.SYSTEMROOT = process.env.SYSTEMROOT;
    const child = spawn(python, ["-I", "-X", "utf8", "-c", BOOT, RELM_PYTHON_DIR], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", (error) =>
      reject(new Error(`could not start ${python} to read the cells: ${error.message}`)),
    );
    // A closed pipe (the process died early) is reported by the exit below.
    child.stdin.on("error", () => {});
    child.on("close", (code, signal) => {
      const stderr = Buffer.concat(err).toString("utf8").trim();
      if (code !== 0) {
        const tail = stderr.split("\n").slice(-3).join(" | ");
        reject(
          new Error(
            `reading the cells with ${python} failed (${signal ?? `exit ${code}`})${tail ? `: ${tail}` : ""}`,
          ),
        );
        return;
      }
      try {
        const answer = JSON.parse(Buffer.concat(out).toString("utf8")) as T & { error?: string };
        if (answer.error) reject(new Error(`reading the cells with ${python} failed: ${answer.error}`));
        else resolve(answer);
      } catch (error) {
        reject(
          new Error(
            `${python} answered the cell reader with something that is not JSON: ${(error as Error).message}`,
          ),
        );
      }
    });
    child.stdin.end(JSON.stringify(request));
  });
}

/** Each distinct code string analysed once. */
export async function analyseCells(
  python: string,
  codes: Iterable<string>,
): Promise<Map<string, CellAnalysis>> {
  const unique = [...new Set(codes)];
  const out = new Map<string, CellAnalysis>();
  if (unique.length === 0) return out;
  const answer = await runSkillMine<{ cells: (CellAnalysis & { error?: string })[] }>(python, {
    op: "cells",
    cells: unique,
  });
  unique.forEach((code, i) => {
    const a = answer.cells[i];
    // A cell the reader failed on is one it cannot rebuild: it never joins a chain.
    out.set(
      code,
      a && !a.error
        ? a
        : {
            problem: `could not be read (${a?.error ?? "no answer"})`,
            size: 0,
            pieces: [],
            binds: [],
            bound: [],
            free: [],
            literals: [],
            imports: [],
          },
    );
  });
  return out;
}

export async function packageInPython(
  python: string,
  requests: PackageRequest[],
): Promise<(PackagedChain | { error: string })[]> {
  if (requests.length === 0) return [];
  const answer = await runSkillMine<{ chains: (PackagedChain | { error: string })[] }>(python, {
    op: "package",
    chains: requests,
  });
  return answer.chains;
}
