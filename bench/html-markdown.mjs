// What turning a fetched page into markdown costs the host, for the libraries fetch() could use: each
// bundled by esbuild as relm bundles itself, imported into a fresh Node, then converting a docs-like page
// (22 kB: navigation, scripts, styles, 40 sections with lists, code and tables) once and five times more.
// node-html-markdown is relm's choice (installed); the others are installed into a temporary folder with
// npm for the comparison. Median of RUNS fresh processes: bundle size, import (load) time, first and warm
// conversion, RSS the import and conversions added, and whether script/style text leaked into the output.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { median, ROOT, table } from "./lib.mjs";

const RUNS = Number(process.env.RUNS ?? 9);
const dir = mkdtempSync(join(tmpdir(), "relm-bench-html-"));
execFileSync(
  "npm",
  ["install", "--prefix", dir, "--no-audit", "--no-fund", "turndown", "@mozilla/readability", "linkedom"],
  {
    stdio: "ignore",
  },
);
const other = (name) => JSON.stringify(join(dir, "node_modules", name));
const DROP = `["script","style","noscript","nav","footer","head","iframe","svg"]`;

const entries = {
  "node-html-markdown": `import { NodeHtmlMarkdown } from ${JSON.stringify(join(ROOT, "node_modules/node-html-markdown"))};
const t = new NodeHtmlMarkdown({ ignore: ${DROP} }); export const convert = (h) => t.translate(h);`,
  turndown: `import TurndownService from ${other("turndown")};
const t = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" }); t.remove(${DROP});
export const convert = (h) => t.turndown(h);`,
  "linkedom + readability + turndown": `import { parseHTML } from ${other("linkedom")};
import { Readability } from ${other("@mozilla/readability")};
import TurndownService from ${other("turndown")};
const t = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
export const convert = (h) => { const { document } = parseHTML(h); const a = new Readability(document).parse(); return t.turndown(a?.content ?? ""); };`,
};

let body = "";
for (let s = 0; s < 40; s++)
  body += `<h2 id="s${s}">Section ${s}</h2><p>Some <b>bold</b> and <a href="/x/${s}">a link</a> &amp; text. ${"Lorem ipsum dolor sit amet. ".repeat(8)}</p>
<ul><li>one <code>x=${s}</code></li><li>two</li></ul><pre><code class="language-py">def f(x):\n    return x * ${s}\n</code></pre>
<table><tr><th>a</th><th>b</th></tr><tr><td>${s}</td><td>v</td></tr></table>`;
const PAGE = `<!doctype html><html><head><title>Docs</title><style>body{color:STYLE_LEAK}</style>
<script>var s="SCRIPT_LEAK"</script></head><body><nav><a href="/">Home</a></nav>
<main><article><h1>The title</h1>${body}</article></main><footer>Footer</footer></body></html>`;
writeFileSync(join(dir, "page.json"), JSON.stringify(PAGE));

const PROBE = `const t0 = performance.now(); const r0 = process.memoryUsage().rss;
const m = await import(process.argv[2]); const t1 = performance.now();
const page = JSON.parse((await import("node:fs")).readFileSync(process.argv[3], "utf8"));
const out = m.convert(page); const t2 = performance.now();
for (let i = 0; i < 5; i++) m.convert(page); const t3 = performance.now();
console.log(JSON.stringify({ load: t1 - t0, first: t2 - t1, warm: (t3 - t2) / 5, rss: (process.memoryUsage().rss - r0) / 1e6, leak: /_LEAK/.test(out), tables: /\\| a \\| b \\|/.test(out) }));`;
writeFileSync(join(dir, "probe.mjs"), PROBE);

const rows = [];
for (const [name, source] of Object.entries(entries)) {
  const entry = join(dir, `${name.replace(/\W+/g, "-")}.mjs`);
  const out = join(dir, `${name.replace(/\W+/g, "-")}.bundle.mjs`);
  writeFileSync(entry, source);
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: out,
    logLevel: "error",
    banner: {
      js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);",
    },
  });
  const runs = [];
  for (let i = 0; i < RUNS; i++)
    runs.push(
      JSON.parse(
        execFileSync(process.execPath, [join(dir, "probe.mjs"), out, join(dir, "page.json")], {
          encoding: "utf8",
        }),
      ),
    );
  rows.push({
    library: name,
    bundle: `${(statSync(out).size / 1000).toFixed(0)} kB`,
    import: `${median(runs.map((r) => r.load)).toFixed(1)} ms`,
    "first page": `${median(runs.map((r) => r.first)).toFixed(1)} ms`,
    "warm page": `${median(runs.map((r) => r.warm)).toFixed(1)} ms`,
    "RSS added": `${median(runs.map((r) => r.rss)).toFixed(1)} MB`,
    tables: runs[0].tables ? "yes" : "no",
    "script/style text": runs[0].leak ? "LEAKED" : "none",
  });
}
rmSync(dir, { recursive: true, force: true });
console.log(`HTML to markdown, ${RUNS} fresh processes each (median), page of ${PAGE.length} chars`);
table(rows);
