// Checks that imports between the folders of src/ only go downward (docs/architecture.md): prints each
// import that goes up or sideways and is not one of the documented exceptions, and exits 1 if any.
//   node scripts/check-layers.mjs          (test/layers.test.ts runs it too)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Lower numbers are lower layers; a folder may import its own layer's folders only where listed below.
 * A key with a slash ("learning/commands") gives a subfolder a layer of its own.
 */
export const LAYERS = {
  config: 0,
  workspace: 0.5, // beside config/, using its error classes
  llm: 1,
  web: 1,
  scripted: 1,
  kernel: 2,
  mcp: 3,
  session: 5,
  // Budgets, deadlines and the admission of model requests: what every other part of the agent counts
  // against, so it imports none of them.
  "agent/budget": 5.9,
  agent: 6,
  host: 7,
  // The self-refining harness, one removable folder: attached to agents and hosts through the hooks
  // agent/ exposes (src/agent/hooks.ts), registered by the composition root (src/cli/setup.ts).
  learning: 7.5,
  // The slash command table the front ends share (src/commands/): above the host it calls, below them.
  commands: 7.8,
  cli: 8,
  // Its commands (relm harness, relm refine; /refine and /learn for the slash command table) sit on the
  // command line's helpers; the command line registers them (the exception below).
  "learning/commands": 8.5,
  tui: 8,
  acp: 8,
  "mcp-server": 8,
  // relm web's server and its browser app (app/, bundled for the browser by scripts/bundle.mjs).
  webui: 8,
};

/** Documented exceptions (docs/architecture.md says why each is there). */
export const EXCEPTIONS = new Set([
  // The command-line dispatcher starts the other front ends (each loaded lazily, only when chosen).
  "cli -> tui",
  "cli -> acp",
  "cli -> mcp-server",
  "cli -> webui",
  // The composition root registers learning's commands: program.ts `relm harness` and `relm refine`,
  // slash-commands.ts `/refine` and `/learn` into the slash command table.
  "cli -> learning/commands",
]);

/**
 * Folders that are plugins: only the files listed (the composition root) import them from outside, so
 * removing one means removing those imports (docs/architecture.md, "The self-refining harness as one
 * folder"). The agent and host reach learning/ through src/agent/hooks.ts only.
 */
export const ATTACHED = {
  learning: [
    "cli/demo.ts",
    "cli/doctor/doctor.ts",
    "cli/program.ts",
    "cli/setup.ts",
    "cli/slash-commands.ts",
    // relm web's learning view reads the harness's files (read-only): it goes with the folder.
    "webui/learning-view.ts",
  ],
};

/** The LAYERS key of a path relative to src/: its subfolder's own when it has one, else its folder's. */
function layerOf(path) {
  const [folder, sub] = path.split("/");
  const nested = `${folder}/${sub}`;
  return nested in LAYERS ? nested : folder;
}

/** "from -> to" when an import from layer `from` into layer `to` goes up or sideways undocumented. */
function layerViolation(from, to) {
  if (to === from || to.startsWith("..") || !(to in LAYERS) || !(from in LAYERS)) return undefined;
  if (LAYERS[to] < LAYERS[from] || EXCEPTIONS.has(`${from} -> ${to}`)) return undefined;
  // Subfolders of one folder on the same layer are that folder's own files.
  if (LAYERS[to] === LAYERS[from] && to.split("/")[0] === from.split("/")[0]) return undefined;
  return `${from} -> ${to}`;
}

/** Why file `path` (of layer `from`) may not import a plugin folder (ATTACHED), if it may not. */
function attachViolation(path, from, to) {
  const plugin = to.split("/")[0];
  if (!(plugin in ATTACHED) || from.split("/")[0] === plugin || ATTACHED[plugin].includes(path))
    return undefined;
  return `only ${ATTACHED[plugin].join(", ")} attach ${plugin}/`;
}

export function violations(srcDir) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts")) files.push(path);
    }
  };
  walk(srcDir);
  const found = [];
  for (const file of files) {
    const path = relative(srcDir, file);
    const from = layerOf(path);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g)) {
      const to = layerOf(relative(srcDir, resolve(dirname(file), m[1])));
      const wrong = layerViolation(from, to) ?? attachViolation(path, from, to);
      if (wrong) found.push(`${path} imports ${m[1]} (${wrong})`);
    }
  }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const src = fileURLToPath(new URL("../src/", import.meta.url));
  const unknown = readdirSync(src).filter((d) => statSync(join(src, d)).isDirectory() && !(d in LAYERS));
  for (const d of unknown) console.log(`src/${d}/ has no layer: add it to LAYERS and docs/architecture.md`);
  const found = violations(src);
  for (const v of found) console.log(v);
  process.exitCode = found.length > 0 || unknown.length > 0 ? 1 : 0;
}
