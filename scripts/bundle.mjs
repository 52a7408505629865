// Bundles the CLI (everything behind dist/cli/main.js) into dist/cli/app.js plus lazily loaded chunks:
// one file per command path loads in a fraction of the time of a hundred small modules. The chunks sit
// beside main.js so that paths relative to a module (../../python, ../../package.json) still resolve.
import { readdirSync, rmSync } from "node:fs";
import { build } from "esbuild";

const outdir = new URL("../dist/cli/", import.meta.url).pathname;
for (const file of readdirSync(outdir))
  if (file.startsWith("chunk-") || file === "app.js") rmSync(outdir + file);
await build({
  entryPoints: { app: `${outdir}dispatch.js` },
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outdir,
  chunkNames: "chunk-[hash]",
  logLevel: "warning",
  // Bundled CommonJS (commander) calls require() for Node built-ins.
  banner: {
    js: "import { createRequire as __relmRequire } from 'node:module'; const require = __relmRequire(import.meta.url);",
  },
});
