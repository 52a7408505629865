// Bundles the CLI (everything behind dist/cli/main.js) into dist/cli/app.js plus lazily loaded chunks:
// one file per command path loads in a fraction of the time of a hundred small modules. The chunks sit
// beside main.js so that paths relative to a module (../../python, ../../package.json) still resolve.
// The packages bundled in (the terminal UI's libraries among them) are build-time dependencies of the
// published package; their licences are collected into dist/THIRD_PARTY_LICENSES.md.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { build } from "esbuild";

const root = new URL("../", import.meta.url).pathname;
const outdir = join(root, "dist/cli/");
for (const file of readdirSync(outdir))
  if (
    file.startsWith("chunk-") ||
    ["app.js", "ui.js", "web.js", "agents.js", "agents.cjs", "relm.cjs"].includes(file)
  )
    rmSync(outdir + file);
// app: every command; ui: bare `relm` at a terminal, straight to the terminal UI (src/cli/ui-entry.ts).
// `relm agents` and the installed entry are built below, as CommonJS.
const esmBundle = {
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outdir,
  chunkNames: "chunk-[hash]",
  logLevel: "warning",
  metafile: true,
  // Bundled CommonJS (commander) calls require() for Node built-ins.
  banner: {
    js: "import { createRequire as __relmRequire } from 'node:module'; const require = __relmRequire(import.meta.url);",
  },
};
const result = await build({
  entryPoints: { app: `${outdir}dispatch.js` },
  ...esmBundle,
});
// Bare `relm` at a terminal: built on its own, so that what the first frame needs is one file rather
// than the few dozen chunks it would share with the commands (each an ES module to resolve, read and
// link before anything is drawn: ~60 ms of a first paint at load 9); what it loads later (the
// highlighter, dialogs) stays in chunks of its own.
const ui = await build({ entryPoints: { ui: `${outdir}ui-entry.js` }, ...esmBundle });

// `relm agents` is one file of its own, sharing no chunk, and CommonJS: each module the loader resolves,
// reads and compiles costs ~1 ms of a listing that should cost about what Node's own start does
// (bench/sessions.mjs), and the entry below requires it without starting the ES module loader.
await build({
  entryPoints: [`${outdir}agents-entry.js`],
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  outfile: `${outdir}agents.cjs`,
  logLevel: "warning",
});
// `relm web` is one ES module of its own, sharing no chunk: the server and what it calls (the session
// hosts' client, the journal reader, the listing), ~10% of what the command bundle and its chunks load.
// An ES module, as the server finds the app's files from import.meta.url.
const web = await build({
  entryPoints: [`${outdir}web-entry.js`],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: `${outdir}web.js`,
  logLevel: "warning",
  metafile: true,
  banner: {
    js: "import { createRequire as __relmRequire } from 'node:module'; const require = __relmRequire(import.meta.url);",
  },
});
// The installed entry (package.json's bin): src/cli/main.ts as CommonJS. It loads everything through
// import() or require() of names held in variables, so converting it pulls nothing in; its one
// `import.meta` is on the path only an ES module takes.
await build({
  entryPoints: [`${outdir}main.js`],
  bundle: false,
  platform: "node",
  format: "cjs",
  target: "node20",
  outfile: `${outdir}relm.cjs`,
  logLevel: "warning",
  logOverride: { "empty-import-meta": "silent" },
});
chmodSync(`${outdir}relm.cjs`, 0o755);

// relm web's page (src/webui/app/): one script for the browser, with its UI library, markdown and all,
// served from the package (no CDN), so it works offline; beside it its page and style sheet.
const webui = join(root, "dist/webui/app/");
mkdirSync(webui, { recursive: true });
const app = await build({
  entryPoints: [join(root, "src/webui/app/main.ts")],
  bundle: true,
  platform: "browser",
  format: "esm",
  target: "es2020",
  minify: true,
  outfile: join(webui, "app.js"),
  logLevel: "warning",
  metafile: true,
});
for (const file of ["index.html", "app.css"])
  copyFileSync(join(root, "src/webui/app", file), join(webui, file));

/** The package directory a bundled input file belongs to (the innermost node_modules/NAME). */
function packageDir(input) {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return m ? join(root, m[1]) : undefined;
}

const packages = new Map();
const inputs = [result, ui, web, app].flatMap((r) => Object.keys(r.metafile.inputs));
for (const input of inputs) {
  const dir = packageDir(input);
  if (!dir || packages.has(dir)) continue;
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const licenceFile = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  packages.set(dir, {
    name: pkg.name,
    version: pkg.version,
    license: typeof pkg.license === "string" ? pkg.license : (pkg.license?.type ?? "see package"),
    text: licenceFile ? readFileSync(join(dir, licenceFile), "utf8").trim() : undefined,
  });
}
const sorted = [...packages.values()].sort((a, b) => a.name.localeCompare(b.name));
const lines = [
  "# Third-party code bundled into relm's CLI",
  "",
  "These packages are compiled into `dist/cli/` and `dist/webui/` by `scripts/bundle.mjs`; their licences follow.",
  "",
];
for (const p of sorted) {
  lines.push(`## ${p.name} ${p.version} (${p.license})`, "");
  if (p.text) lines.push("```", p.text, "```", "");
}
const target = join(root, "dist/THIRD_PARTY_LICENSES.md");
if (existsSync(dirname(target))) writeFileSync(target, `${lines.join("\n")}\n`);

// The model catalog is data read at run time (src/llm/catalog/index.ts), not code: tsc does not copy it.
// Bundled chunks in dist/cli/ find it at ../llm/catalog/models.json.
mkdirSync(join(root, "dist/llm/catalog"), { recursive: true });
copyFileSync(join(root, "src/llm/catalog/models.json"), join(root, "dist/llm/catalog/models.json"));
