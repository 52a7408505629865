// Checks that no modules of src/ import each other in a circle (docs/architecture.md): prints each circle
// (a strongly connected group of modules, with one path around it) and exits 1 if there is any.
//   node scripts/check-cycles.mjs          (npm run check and test/layers.test.ts run it too)
// Every import counts: static and dynamic, `export … from`, and `import type` too. A type-only circle
// costs nothing at run time, but it ties the modules together all the same: neither can be read, moved
// or removed without the other, which is what this check is for.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The relative modules a module's text imports, statically or not (TypeScript's scanner skips comments). */
function specifiers(text) {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map((f) => f.fileName).filter((name) => name.startsWith("."));
}

function tsFiles(dir) {
  const files = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...tsFiles(path));
    else if (path.endsWith(".ts") && !path.endsWith(".d.ts")) files.push(path);
  }
  return files;
}

/** The .ts file an import of `specifier` from `file` names, if it is one of ours. */
function target(file, specifier) {
  const path = resolve(dirname(file), specifier);
  for (const candidate of [path.replace(/\.js$/, ".ts"), `${path}.ts`, join(path, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Each module (path relative to `srcDir`) → the modules it imports. */
export function importGraph(srcDir) {
  const graph = new Map();
  for (const file of tsFiles(srcDir)) {
    const edges = new Set();
    for (const specifier of specifiers(readFileSync(file, "utf8"))) {
      const to = target(file, specifier);
      if (to) edges.add(relative(srcDir, to));
    }
    graph.set(relative(srcDir, file), [...edges].sort());
  }
  return graph;
}

/** The strongly connected groups of more than one module (or one importing itself), Tarjan's way. */
function circles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) !== index.get(node)) return;
    const group = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(group.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** One way around a group: from its first module back to it, through the group only (breadth first). */
function loop(graph, group) {
  const members = new Set(group);
  const start = group[0];
  const came = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(came.get(path[0]));
        return [...path, start];
      }
      if (!came.has(to)) {
        came.set(to, node);
        queue.push(to);
      }
    }
  }
  return group;
}

/** Each circle among the modules of `srcDir`, as "a.ts -> b.ts -> a.ts (n modules: …)". */
export function cycles(srcDir) {
  const graph = importGraph(srcDir);
  return circles(graph).map((group) => {
    const around = loop(graph, group).join(" -> ");
    return group.length > 2 ? `${around} (${group.length} modules: ${group.join(", ")})` : around;
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const found = cycles(fileURLToPath(new URL("../src/", import.meta.url)));
  for (const c of found) console.log(`import circle: ${c}`);
  process.exitCode = found.length > 0 ? 1 : 0;
}
