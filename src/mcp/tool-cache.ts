// The tool names (and one-line summaries) each server offered when it last ran, kept in
// $RELM_HOME/cache/mcp/HASH.json where HASH is serverHash() of its configuration. A system prompt is
// written before any server starts (servers start lazily), and must not change within a session; so it
// lists what this cache knew when the session began, and "not yet known" for a server never run with
// this exact configuration. Names and descriptions only: nothing secret is stored.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFile } from "../config/private-file.js";
import { type McpServer, serverHash } from "./config.js";
import type { ToolInfo } from "./connection.js";

export interface CachedTool {
  name: string;
  /** The first sentence of its description, cut at SUMMARY_CHARS. */
  summary: string;
}

const VERSION = 1;
const SUMMARY_CHARS = 120;

function cacheFile(cacheDir: string, server: McpServer): string {
  return join(cacheDir, "mcp", `${serverHash(server)}.json`);
}

/** The tools cached for this exact configuration, or undefined when it never ran. */
export function readToolCache(cacheDir: string, server: McpServer): CachedTool[] | undefined {
  try {
    const data = JSON.parse(readFileSync(cacheFile(cacheDir, server), "utf8")) as {
      version?: number;
      tools?: unknown;
    };
    if (data.version !== VERSION || !Array.isArray(data.tools)) return undefined;
    return data.tools.filter(
      (t): t is CachedTool => typeof t?.name === "string" && typeof t?.summary === "string",
    );
  } catch {
    return undefined;
  }
}

/** A description's first sentence (or line), cut at SUMMARY_CHARS: what a prompt's listing shows. */
export function summaryOf(description: string): string {
  // The server's text: its first line only (any line break counts), without control characters.
  const line =
    description
      .trim()
      .split(/[\n\r\v\f\u0085\u2028\u2029]/)[0]
      ?.replace(/[\p{Cc}\p{Cf}]+/gu, " ")
      .trim() ?? "";
  const sentence = /^(.{20,}?[.!?])\s/.exec(line)?.[1] ?? line;
  if (sentence.length <= SUMMARY_CHARS) return sentence;
  const cut = sentence.slice(0, SUMMARY_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > SUMMARY_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/** Records a server's tool list (written only when it changed); failures to write are not errors. */
export function writeToolCache(cacheDir: string, server: McpServer, tools: readonly ToolInfo[]): void {
  const entries: CachedTool[] = tools.map((t) => ({ name: t.name, summary: summaryOf(t.description) }));
  const known = readToolCache(cacheDir, server);
  if (known && JSON.stringify(known) === JSON.stringify(entries)) return;
  const text = `${JSON.stringify({ version: VERSION, server: server.name, tools: entries })}\n`;
  try {
    writePrivateFile(cacheFile(cacheDir, server), text);
  } catch {
    // A read-only cache only costs the next session its tool names.
  }
}
