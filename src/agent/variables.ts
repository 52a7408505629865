import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../config/errors.js";
import type { VariableSource } from "../kernel/types.js";

export interface VariableSpec {
  name: string;
  source: VariableSource;
  /** Delete the source file once the kernel has loaded it (a hand-off from another kernel). */
  consume?: boolean;
  /** Given when another kernel described the value (a pickle cannot be described from here). */
  description?: VariableDescription;
}

/** What the prompt says about a variable: never its content, only its shape and a short preview. */
export interface VariableDescription {
  name: string;
  type: string;
  size: string;
  preview: string;
  origin?: string;
}

const PY_KEYWORDS = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for from " +
    "global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);

const PREVIEW_CHARS = 160;

/** A name a user may give a kernel variable: a Python identifier, not a keyword, not starting with "_". */
export function isVariableName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PY_KEYWORDS.has(name) && !name.startsWith("_");
}

/** `NAME=@FILE` loads a file, `NAME=TEXT` a literal string. */
export function parseVariableFlag(flag: string, cwd: string): VariableSpec {
  const eq = flag.indexOf("=");
  if (eq <= 0) throw new UsageError(`--var "${flag}": expected NAME=TEXT or NAME=@FILE`);
  const name = flag.slice(0, eq);
  const value = flag.slice(eq + 1);
  if (!isVariableName(name)) {
    throw new UsageError(`--var "${name}": the name must be a Python identifier not starting with "_"`);
  }
  if (value.startsWith("@")) {
    const file = resolve(cwd, value.slice(1));
    let isFile = false;
    try {
      isFile = statSync(file).isFile();
    } catch {
      throw new UsageError(`--var ${name}=@${value.slice(1)}: no such file (${file})`);
    }
    if (!isFile) throw new UsageError(`--var ${name}=@${value.slice(1)}: ${file} is not a regular file`);
    return { name, source: { file } };
  }
  return { name, source: { text: value } };
}

function preview(text: string): string {
  const head = text.slice(0, PREVIEW_CHARS);
  const shown = JSON.stringify(head);
  return text.length > PREVIEW_CHARS ? `${shown}…` : shown;
}

/**
 * Describes a variable from the host side, so the system prompt can name it before the kernel has
 * even started. The kernel makes the same str/bytes choice (valid UTF-8 becomes str).
 */
export function describeVariable(spec: VariableSpec): VariableDescription {
  if (spec.description) return spec.description;
  if ("pickle" in spec.source) throw new Error("values from another kernel are described by that kernel");
  if ("text" in spec.source) {
    const text = spec.source.text;
    return {
      name: spec.name,
      type: "str",
      size: `${[...text].length.toLocaleString("en-US")} chars`,
      preview: preview(text),
    };
  }
  const bytes = readFileSync(spec.source.file);
  let text: string | undefined;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    const hex = bytes.subarray(0, 24).toString("hex");
    return {
      name: spec.name,
      type: "bytes",
      size: `${bytes.length.toLocaleString("en-US")} bytes`,
      preview: `hex ${hex}${bytes.length > 24 ? "…" : ""}`,
      origin: spec.source.file,
    };
  }
  return {
    name: spec.name,
    type: "str",
    size: `${countCodePoints(text).toLocaleString("en-US")} chars, ${plural(countLines(text), "line")}`,
    preview: preview(text),
    origin: spec.source.file,
  };
}

function countCodePoints(text: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) surrogatePairs++;
  }
  return text.length - surrogatePairs;
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < text.length - 1; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}

export function renderVariableLine(v: VariableDescription): string {
  const from = v.origin ? ` (from ${v.origin})` : "";
  return `\`${v.name}\`: ${v.type}, ${v.size}${from}; starts ${v.preview}`;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}
