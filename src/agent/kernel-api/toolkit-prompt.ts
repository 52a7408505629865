// The system prompt's section on the bundled toolkit (python/relm/toolkit/): one line per function, so
// the model knows the functions exist; their docstrings are the manual (`help(edit)`). Rendered once per
// agent tree and kept in the prompt inputs, so it is byte-identical for a whole session like the harness
// block, and fixed in size: the whole block stays under 1500 bytes (test/agent/toolkit-prompt.test.ts).

const HEADER = "# Toolkit (already imported; help(name) is the manual)";

/** One line per function (or per closely related pair), in the order the model meets them. */
export const TOOLKIT_LINES: readonly string[] = [
  "view(path, start=None, end=None): numbered lines, capped",
  "edit(path, old, new, count=1): replace exact text; raises if missing or ambiguous, keeps encoding/EOLs",
  "apply_patch(text): unified diff or *** Begin Patch; all files or none",
  "write(path, text): create or overwrite (makes folders), says what changed",
  "grep(pattern, path='.', glob=None, ignore_case=False): .gitignore-aware regex, list of (path, line, text)",
  "glob(pattern), tree(path='.', depth=2): .gitignore-aware file listings",
  "run_tests(cmd=None): runs the project's tests → .passed .failed .failures .first_failure .tail",
  "fetch(url): a web page as markdown/text (.title, .final_url); fetch.raw(url): its bytes",
  "search(query, n=5): web results, each .title .url .snippet",
  "look(image): see an image file, figure, array or PIL image with this cell's result",
];

/** The block as it appears in the system prompt. */
export function renderToolkitBlock(lines: readonly string[] = TOOLKIT_LINES): string {
  return [HEADER, ...lines.map((line) => `- ${line}`)].join("\n");
}
