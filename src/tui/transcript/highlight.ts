// Syntax highlighting for cells and fenced code: highlight.js grammars through emphasize (which maps
// highlight.js classes to ANSI styles). Only the languages an agent's transcript shows are registered,
// so the UI's bundle stays small.
import { createEmphasize } from "emphasize";
import bash from "highlight.js/lib/languages/bash";
import diff from "highlight.js/lib/languages/diff";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const emphasize = createEmphasize({
  bash,
  diff,
  javascript,
  json,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
});

const ALIASES: Record<string, string> = {
  py: "python",
  ipython: "python",
  sh: "bash",
  zsh: "bash",
  console: "shell",
  js: "javascript",
  ts: "typescript",
  tsx: "typescript",
  jsx: "javascript",
  html: "xml",
  yml: "yaml",
  md: "markdown",
  rs: "rust",
};

/** The code as highlighted lines; plain lines for a language it does not know. */
export function highlightLines(code: string, lang: string | undefined): string[] {
  const name = lang ? (ALIASES[lang.toLowerCase()] ?? lang.toLowerCase()) : undefined;
  if (!name || !emphasize.registered(name)) return code.split("\n");
  try {
    return emphasize.highlight(name, code).value.split("\n");
  } catch {
    return code.split("\n");
  }
}

/**
 * A cell's code: Python, except that IPython's `!cmd` lines and `%%bash` cells are shell. Highlighting
 * a cell line by line would lose multi-line strings, so shell lines are only split off when present.
 */
export function highlightCell(code: string): string[] {
  if (/^%%(bash|sh)\b/.test(code)) {
    const [first, ...rest] = code.split("\n");
    return [first ?? "", ...highlightLines(rest.join("\n"), "bash")];
  }
  if (!/^\s*[!%]/m.test(code)) return highlightLines(code, "python");
  return code.split("\n").map((line) => {
    const shellLine = /^(\s*)!(.*)$/.exec(line);
    if (shellLine) return `${shellLine[1]}!${highlightLines(shellLine[2] ?? "", "bash")[0] ?? ""}`;
    if (/^\s*%/.test(line)) return line;
    return highlightLines(line, "python")[0] ?? line;
  });
}
