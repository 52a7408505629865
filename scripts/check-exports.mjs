// Lists what src/ exports that nothing else uses, and exits 1 if there is any (npm run check runs it):
//   node scripts/check-exports.mjs         (--fix drops the `export` of "local" ones and "re-export" lines)
// An export of a module of src/ is needed when another module imports it: another module of src/, a
// bench or script (they import the build, dist/…/x.js, which is src/…/x.ts), or a test whose module uses
// it too. Otherwise it is one of
//   unused        nothing uses it, not even its own module: delete it
//   local         only its own module uses it: drop the `export`
//   tests only    only tests import it and src/ never uses it: code kept alive by its tests. Delete it
//                 with its tests, or, when it exists for tests (a seam, a reset, a fixture), say so with
//                 `@testing` in its doc comment
//   re-export     an `export { x } from` (a folder's index.ts) nobody imports x through: drop the line
// Uses are found by the type checker, not by names: every identifier of src/, test/ and bench/ is
// resolved through its imports and re-exports to the declaration it names, so a type-only use, a
// property of a namespace import and a name destructured from `await import()` all count.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const repo = new URL("../", import.meta.url).pathname;

/** Which part of the repository a file is: "src", "test" or "tool" (bench/, scripts/). */
function partOf(root, file) {
  const rel = relative(root, file);
  if (rel.startsWith("src/")) return "src";
  if (rel.startsWith("test/")) return "test";
  return "tool";
}

function program(root) {
  const configFile = join(root, "tsconfig.json");
  const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, { noEmit: true }, configFile);
  return ts.createProgram(parsed.fileNames, parsed.options);
}

/** The .mjs files of bench/ and scripts/: they import the build, so they are read as text. */
function toolFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.m?js$/.test(name)) files.push(path);
    }
  };
  for (const dir of ["bench", "scripts"]) if (existsSync(join(root, dir))) walk(join(root, dir));
  return files;
}

/** The findings for the repository at `root` (src/, test/, bench/, scripts/ and its tsconfig.json). */
export function unusedExports(root = repo) {
  const prog = program(root);
  const checker = prog.getTypeChecker();
  /** A declaration's symbol → the parts (and, for "own", its own file) that use it. */
  const users = new Map();
  /** Re-export (alias) symbols something imported through. */
  const throughAlias = new Set();

  const own = (symbol) => {
    const decl = symbol.declarations?.[0];
    return decl?.getSourceFile().fileName;
  };
  const use = (symbol, file) => {
    let sym = symbol;
    for (let hops = 0; sym && hops < 20; hops++) {
      sym = checker.getExportSymbolOfSymbol(sym);
      if (!(sym.flags & ts.SymbolFlags.Alias)) break;
      throughAlias.add(sym);
      // An alias with no declaration of its own (a package's namespace) has no immediate target.
      sym = sym.declarations?.length ? checker.getImmediateAliasedSymbol(sym) : checker.getAliasedSymbol(sym);
    }
    if (!sym) return;
    const part = own(sym) === file ? "own" : partOf(root, file);
    if (!users.has(sym)) users.set(sym, new Set());
    users.get(sym).add(part);
  };

  const isDeclarationName = (id) => {
    const parent = id.parent;
    if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent) || ts.isImportClause(parent))
      return true;
    if (ts.isNamespaceImport(parent) || ts.isImportEqualsDeclaration(parent)) return true;
    return ts.isDeclaration(parent) && parent.name === id && !ts.isBindingElement(parent);
  };

  for (const sf of prog.getSourceFiles()) {
    if (sf.isDeclarationFile || sf.fileName.includes("/node_modules/")) continue;
    const file = sf.fileName;
    const visit = (node) => {
      if (ts.isIdentifier(node) && !isDeclarationName(node)) {
        const parent = node.parent;
        const symbol =
          ts.isShorthandPropertyAssignment(parent) && parent.name === node
            ? checker.getShorthandAssignmentValueSymbol(parent)
            : checker.getSymbolAtLocation(node);
        if (symbol) use(symbol, file);
      }
      // `const { a, b: c } = await import("./x.js")` and the like: the names are properties of the module.
      if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const key = node.propertyName ?? node.name;
        if (ts.isIdentifier(key)) {
          const property = checker.getTypeAtLocation(node.parent).getProperty(key.text);
          if (property) use(property, file);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  // bench/ and scripts/ import dist/x.js: each name of src/x.ts that such a file mentions counts as used.
  for (const file of toolFiles(root)) {
    const text = readFileSync(file, "utf8");
    const words = new Set(text.match(/[A-Za-z_$][\w$]*/g));
    for (const [, path] of text.matchAll(/dist\/([\w/.-]+)\.js/g)) {
      const sf = prog.getSourceFile(join(root, "src", `${path}.ts`));
      const moduleSymbol = sf && checker.getSymbolAtLocation(sf);
      if (!moduleSymbol) continue;
      for (const exported of checker.getExportsOfModule(moduleSymbol))
        if (words.has(exported.name)) use(exported, file);
    }
  }

  const findings = [];
  for (const sf of prog.getSourceFiles()) {
    if (partOf(root, sf.fileName) !== "src" || sf.isDeclarationFile) continue;
    // relm web's browser page is its own program (src/webui/app/tsconfig.json: DOM, no Node), outside
    // this one: a test that imports one of its modules pulls that in, but not the page modules using it.
    if (relative(root, sf.fileName).startsWith("src/webui/app/")) continue;
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const decl = exported.declarations?.[0];
      if (!decl || decl.getSourceFile() !== sf) continue; // `export *`: checked where it is declared
      const at = `${relative(root, sf.fileName)}:${sf.getLineAndCharacterOfPosition(decl.getStart()).line + 1}`;
      const where = { sf, exported };
      let target = exported;
      if (exported.flags & ts.SymbolFlags.Alias) {
        if (throughAlias.has(exported)) continue;
        target = checker.getAliasedSymbol(exported);
        if (own(target) !== sf.fileName) {
          findings.push({ kind: "re-export", name: exported.name, at, ...where });
          continue;
        }
      }
      const parts = users.get(target) ?? new Set();
      if (parts.has("src") || parts.has("tool")) continue;
      if (parts.has("test")) {
        if (parts.has("own") || testing(target)) continue;
        findings.push({ kind: "tests only", name: exported.name, at, ...where });
      } else
        findings.push({ kind: parts.has("own") ? "local" : "unused", name: exported.name, at, ...where });
    }
  }
  return findings;
}

/** Whether a declaration's doc comment says it exists for tests (`@testing`). */
function testing(symbol) {
  return symbol.declarations?.some((d) => ts.getJSDocTags(d).some((tag) => tag.tagName.text === "testing"));
}

/** Applies the mechanical fixes: `export` dropped from "local" findings, "re-export" names dropped. */
function fix(findings) {
  const edits = new Map(); // file → [start, end, replacement]
  const dropped = new Map(); // an `export { … }` declaration → the specifiers to drop from it
  const edit = (sf, start, end, by) => {
    if (!edits.has(sf.fileName)) edits.set(sf.fileName, []);
    edits.get(sf.fileName).push([start, end, by]);
  };
  for (const { kind, sf, exported } of findings) {
    for (const decl of exported.declarations ?? []) {
      if (decl.getSourceFile() !== sf) continue;
      if (ts.isExportSpecifier(decl)) {
        const statement = decl.parent.parent;
        if (!dropped.has(statement)) dropped.set(statement, new Set());
        dropped.get(statement).add(decl);
        continue;
      }
      if (kind !== "local") continue;
      let holder = decl;
      if (ts.isVariableDeclaration(decl)) {
        if (decl.parent.declarations.length !== 1) continue;
        holder = decl.parent.parent;
      }
      const modifiers = ts.getModifiers(holder) ?? [];
      const modifier = modifiers.find((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!modifier || modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)) continue;
      edit(sf, modifier.getStart(), modifier.getEnd() + 1, "");
    }
  }
  for (const [statement, drop] of dropped) {
    const sf = statement.getSourceFile();
    const kept = statement.exportClause.elements.filter((e) => !drop.has(e));
    const from = statement.moduleSpecifier ? ` from ${statement.moduleSpecifier.getText()}` : "";
    const text = `export ${statement.isTypeOnly ? "type " : ""}{ ${kept.map((e) => e.getText()).join(", ")} }${from};`;
    const end = statement.getEnd() + (sf.text[statement.getEnd()] === "\n" ? 1 : 0);
    edit(sf, statement.getStart(), kept.length ? statement.getEnd() : end, kept.length ? text : "");
  }
  for (const [file, list] of edits) {
    let text = readFileSync(file, "utf8");
    const seen = new Set();
    for (const [start, end, by] of list.sort((a, b) => b[0] - a[0])) {
      if (seen.has(start)) continue;
      seen.add(start);
      text = text.slice(0, start) + by + text.slice(end);
    }
    writeFileSync(file, text);
  }
  return [...edits.keys()];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const findings = unusedExports();
  if (process.argv.includes("--fix")) {
    const files = fix(findings.filter((f) => f.kind === "local" || f.kind === "re-export"));
    console.log(`fixed ${files.length} files; run npx biome check --write on them\n${files.join("\n")}`);
  }
  for (const f of findings) console.log(`${f.at}  ${f.kind}: ${f.name}`);
  if (findings.length) {
    console.log(
      `\n${findings.length} exports nothing uses (scripts/check-exports.mjs says what to do with each)`,
    );
    process.exitCode = 1;
  }
}
