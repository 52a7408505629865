import { isUtf8 } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../../config/errors.js";
import type { VariableSource } from "../../kernel/types.js";
import type { JournalBodyOf } from "../../session/types.js";
import { reservedVariableProblem, shadowedBuiltinWarning } from "./variable-names.js";

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

/** Python's keywords: no variable, attribute or package may be named one. */
export const PYTHON_KEYWORDS = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for from " +
    "global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);

const PREVIEW_CHARS = 160;

/**
 * The largest file `--var NAME=@FILE` loads. The kernel reads it whole into one str (or bytes), holding
 * the raw bytes and the decoded text at once while it decodes, and its snapshots and forks carry it
 * from then on: 1 GiB costs a few GiB of memory at the peak, which is where "a variable" ends and
 * "data the model should read in parts" begins. Checked with stat, before anything reads the file.
 */
export const MAX_VAR_FILE_BYTES = 1024 ** 3;

/** Above this a file's characters and lines are not counted (its size in bytes is exact anyway). */
const COUNT_LIMIT_BYTES = 64 * 1024 ** 2;
const CHUNK_BYTES = 1024 ** 2;

/** A name a user may give a kernel variable: a Python identifier, not a keyword, not starting with "_". */
export function isVariableName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PYTHON_KEYWORDS.has(name) && !name.startsWith("_");
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
  const reserved = reservedVariableProblem(name, value);
  if (reserved) throw new UsageError(reserved);
  if (value.startsWith("@")) {
    const file = resolve(cwd, value.slice(1));
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(file);
    } catch {
      throw new UsageError(`--var ${name}=@${value.slice(1)}: no such file (${file})`);
    }
    if (!stat.isFile())
      throw new UsageError(`--var ${name}=@${value.slice(1)}: ${file} is not a regular file`);
    // Measured before anything reads it: the kernel holds the whole file as one value.
    if (stat.size > MAX_VAR_FILE_BYTES) {
      throw new UsageError(
        `--var ${name}=@${value.slice(1)}: the file is ${formatBytes(stat.size)}; --var loads at most ` +
          `${formatBytes(MAX_VAR_FILE_BYTES)} into the kernel as one value. For a larger file give its path ` +
          `instead (--var ${name}_path=${file}) and let the model read it in parts`,
      );
    }
    return { name, source: { file } };
  }
  return { name, source: { text: value } };
}

/** Warnings for `--var` flags whose names shadow a Python built-in (allowed: the user may mean it). */
export function variableFlagWarnings(flags: readonly string[]): string[] {
  return flags.flatMap((flag) => {
    const eq = flag.indexOf("=");
    const warning = eq > 0 ? shadowedBuiltinWarning(flag.slice(0, eq), flag.slice(eq + 1)) : undefined;
    return warning ? [warning] : [];
  });
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
  return describeFile(spec.name, spec.source.file);
}

/**
 * A file variable described the way the kernel will load it (valid UTF-8 becomes str, anything else
 * bytes), read in chunks so a file of any size costs the host a megabyte of memory, never the file.
 */
function describeFile(name: string, file: string): VariableDescription {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const count = size <= COUNT_LIMIT_BYTES;
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES + 3);
    let head = Buffer.alloc(0);
    let carry = 0; // bytes of a character cut by the chunk's end, moved to the next chunk's start
    let valid = true;
    let codePoints = 0;
    let newlines = 0;
    let last = -1;
    for (let position = 0; ; ) {
      const n = readSync(fd, chunk, carry, CHUNK_BYTES, position);
      if (n === 0) break;
      position += n;
      const end = carry + n;
      if (head.length < 1024)
        head = Buffer.concat([head, chunk.subarray(carry, Math.min(end, carry + 1024))]);
      last = chunk[end - 1] as number;
      const whole = end - cutCharacter(chunk, end);
      if (valid && !isUtf8(chunk.subarray(0, whole))) valid = false;
      if (count) {
        for (let i = 0; i < whole; i++) if (((chunk[i] as number) & 0xc0) !== 0x80) codePoints++;
        for (let i = chunk.indexOf(10, 0); i !== -1 && i < whole; i = chunk.indexOf(10, i + 1)) newlines++;
      }
      if (!valid) break;
      chunk.copy(chunk, 0, whole, end);
      carry = end - whole;
    }
    if (carry > 0) valid = false; // the file ends inside a character
    if (!valid) {
      const hex = head.subarray(0, 24).toString("hex");
      return {
        name,
        type: "bytes",
        size: `${size.toLocaleString("en-US")} bytes`,
        preview: `hex ${hex}${size > 24 ? "…" : ""}`,
        origin: file,
      };
    }
    // Python keeps a byte-order mark as a character; so does this decoder.
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(head, { stream: true });
    const lines = size === 0 ? 0 : newlines + (last === 10 ? 0 : 1);
    return {
      name,
      type: "str",
      size: count
        ? `${codePoints.toLocaleString("en-US")} chars, ${plural(lines, "line")}`
        : `${formatBytes(size)} of UTF-8 text`,
      preview: size > head.length ? `${JSON.stringify(text.slice(0, PREVIEW_CHARS))}…` : preview(text),
      origin: file,
    };
  } finally {
    closeSync(fd);
  }
}

/** How many bytes at the end of buf[0, end) start a UTF-8 character that continues past `end`. */
function cutCharacter(buf: Buffer, end: number): number {
  for (let back = 1; back <= Math.min(3, end); back++) {
    const b = buf[end - back] as number;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

/** 2.0 GiB, 512.0 MiB: a size for a message. */
function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

/** The journal's `variable` event for a described variable (the prompt of a resume names it from there). */
export function variableEvent(d: VariableDescription): JournalBodyOf<"variable"> {
  return { type: "variable", name: d.name, varType: d.type, size: d.size, preview: d.preview };
}

export function renderVariableLine(v: VariableDescription): string {
  const from = v.origin ? ` (from ${v.origin})` : "";
  return `\`${v.name}\`: ${v.type}, ${v.size}${from}; starts ${v.preview}`;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}
