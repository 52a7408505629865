// Trap families: a quirk of the project's test runner. The task is "add a function and a unittest test
// for it"; the gate is the project's runner, which only accepts the work done its way and says so when
// it fails (the first line names the instance, the last one states the rule).
import { py } from "../kit.mjs";

const FUNCTIONS = [
  { fn: "double", desc: "x doubled", f: (x) => 2 * x, body: "2 * x" },
  { fn: "square", desc: "x squared", f: (x) => x * x, body: "x * x" },
  { fn: "negate", desc: "minus x", f: (x) => -x, body: "-x" },
  { fn: "triple", desc: "three times x", f: (x) => 3 * x, body: "3 * x" },
  { fn: "cube", desc: "x cubed", f: (x) => x * x * x, body: "x * x * x" },
  { fn: "increment", desc: "x plus one", f: (x) => x + 1, body: "x + 1" },
  { fn: "decrement", desc: "x minus one", f: (x) => x - 1, body: "x - 1" },
];

const CALC = '"""Small arithmetic helpers."""\n\n\ndef identity(x):\n    return x\n';

/** The instance every runner family shares: one function (distinct per instance) to add to calc.py. */
function addFunction(_r, i, conv, _stem, extraFiles = {}) {
  // A different function for each of a project's instances, starting at a place the seed chose.
  const f = FUNCTIONS[(conv.shift + i) % FUNCTIONS.length];
  return {
    fn: f.fn,
    body: f.body,
    module: "calc",
    cases: [0, 1, 2, 5, -3].map((x) => [x, f.f(x)]),
    files: { "calc.py": CALC, "tests/__init__.py": "", ...extraFiles },
    task: `Add a function \`${f.fn}(x)\` to calc.py that returns ${f.desc}, and a unittest test for it under tests/.`,
  };
}

/** Python: append a definition of the instance's function to calc.py (`head`: its def line, `doc`: a docstring). */
const appendDef = (i, { head = `def ${i.fn}(x):`, doc = "", after = "" } = {}) =>
  `import os\nsrc = open("calc.py").read()\nopen("calc.py", "w").write(src + ${py(`\n\n${head}\n${doc}    return ${i.body}\n${after}`)})\n`;
/** Python: write a unittest file for the instance's function. */
const writeTest = (i, { path = `tests/test_${i.fn}.py`, base = "unittest.TestCase", imports = "" } = {}) => {
  const [x, y] = i.cases[3];
  const text = `import unittest\n${imports}from calc import ${i.fn}\n\n\nclass Test${i.fn[0].toUpperCase()}${i.fn.slice(1)}(${base}):\n    def test_${i.fn}(self):\n        self.assertEqual(${i.fn}(${x}), ${y})\n`;
  return `os.makedirs("tests", exist_ok=True)\nopen(${py(path)}, "w").write(${py(text)})\nprint("wrote calc.py and", ${py(path)})\n`;
};
const naive = (i) => appendDef(i) + writeTest(i);

/** The runner's checks shared by every family (defined in the checker's prelude: see project.mjs). */
const check = (quirk) => `def check(inst, conv):
    mod, problems = calc_fn(inst)
    if problems: return problems
${quirk}`;

export const testRunner = [
  {
    id: "test-file-prefix",
    category: "test-runner quirk",
    title: "the runner only collects one file prefix",
    conv: (r) => ({ shift: r.int(0, 6), prefix: r.pick(["check_", "spec_", "t_"]) }),
    instance: (r, i, conv, stem) => addFunction(r, i, conv, stem),
    check: check(`    files = sorted(glob.glob("tests/%s*.py" % conv["prefix"]))
    if not mentions(files, inst["fn"]):
        return ["runner: collected 0 tests for " + inst["fn"], "runner: this project's runner only collects tests/%s*.py files" % conv["prefix"]]
    return run_tests(files)`),
    naive,
    right: (i, c) => appendDef(i) + writeTest(i, { path: `tests/${c.prefix}${i.fn}.py` }),
    key: (c) => `only collects tests/${c.prefix}*.py`,
    lesson: (c) =>
      `This project's test runner only collects tests/${c.prefix}*.py files: name new test files tests/${c.prefix}<name>.py.`,
    bad: () => "Test files in this project are named tests/test_*.py, as unittest discovery expects.",
  },
  {
    id: "test-manifest",
    category: "test-runner quirk",
    title: "the runner runs only listed test files",
    conv: (r) => ({
      shift: r.int(0, 6),
      manifest: r.pick(["tests/MANIFEST", "tests/suite.txt", "tests/ORDER"]),
    }),
    instance: (r, i, conv, stem) =>
      addFunction(r, i, conv, stem, { [conv.manifest]: "# test files the runner runs, one per line\n" }),
    check:
      check(`    listed = [l.strip() for l in (read(conv["manifest"]) or "").splitlines() if l.strip() and not l.startswith("#")]
    files = ["tests/" + f for f in listed if os.path.exists("tests/" + f)]
    if not mentions(files, inst["fn"]):
        return ["runner: ran no test of " + inst["fn"], "runner: this project's runner only runs the test files listed in %s" % conv["manifest"]]
    return run_tests(files)`),
    naive,
    right: (i, c) => `${naive(i)}open(${py(c.manifest)}, "a").write(${py(`test_${i.fn}.py\n`)})\n`,
    key: (c) => `listed in ${c.manifest}`,
    lesson: (c) =>
      `This project's test runner only runs the test files listed in ${c.manifest}: add each new test file's name there.`,
    bad: () =>
      "This project's test runner finds every tests/test_*.py file by itself; nothing needs listing.",
  },
  {
    id: "test-doctest",
    category: "test-runner quirk",
    title: "every public function needs a doctest",
    conv: (r) => ({ shift: r.int(0, 6) }),
    instance: (r, i, conv, stem) => addFunction(r, i, conv, stem),
    check: check(`    fn = getattr(mod, inst["fn"])
    examples = [e for t in doctest.DocTestFinder().find(fn) for e in t.examples]
    if not examples:
        return ["runner: calc." + inst["fn"] + " has no doctest", "runner: every public function in this project needs a doctest (a >>> example in its docstring)"]
    import io, contextlib
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf): doctest.run_docstring_examples(fn, {inst["fn"]: fn}, name=inst["fn"])
    if buf.getvalue().strip(): return ["runner: the doctest of " + inst["fn"] + " failed", buf.getvalue()[-400:]]
    files = sorted(glob.glob("tests/test_*.py"))
    if not mentions(files, inst["fn"]): return ["runner: collected 0 tests for " + inst["fn"]]
    return run_tests(files)`),
    naive,
    right: (i) => {
      const [x, y] = i.cases[2];
      return (
        appendDef(i, { doc: `    """Return ${i.body}.\n\n    >>> ${i.fn}(${x})\n    ${y}\n    """\n` }) +
        writeTest(i)
      );
    },
    key: () => "needs a doctest",
    lesson: () =>
      "Every public function in this project needs a doctest: a >>> example in its docstring, which the test runner runs.",
    bad: () => "Docstrings in this project stay short: one line, no examples.",
  },
  {
    id: "test-annotations",
    category: "test-runner quirk",
    title: "functions must be fully annotated",
    conv: (r) => ({ shift: r.int(0, 6) }),
    instance: (r, i, conv, stem) => addFunction(r, i, conv, stem),
    check: check(`    sig = inspect.signature(getattr(mod, inst["fn"]))
    if sig.return_annotation is inspect.Signature.empty or any(p.annotation is inspect.Parameter.empty for p in sig.parameters.values()):
        return ["runner: calc." + inst["fn"] + " is not annotated", "runner: functions in this project are fully annotated: every parameter and the return type"]
    files = sorted(glob.glob("tests/test_*.py"))
    if not mentions(files, inst["fn"]): return ["runner: collected 0 tests for " + inst["fn"]]
    return run_tests(files)`),
    naive,
    right: (i) => appendDef(i, { head: `def ${i.fn}(x: int) -> int:` }) + writeTest(i),
    key: () => "fully annotated",
    lesson: () =>
      "Functions in this project are fully annotated (every parameter and the return type); the test runner rejects others.",
    bad: () => "This project keeps functions unannotated: no type hints.",
  },
  {
    id: "test-dunder-all",
    category: "test-runner quirk",
    title: "public functions are listed in __all__",
    conv: (r) => ({ shift: r.int(0, 6) }),
    instance: (r, i, conv, stem) => addFunction(r, i, conv, stem),
    check: check(`    if inst["fn"] not in (getattr(mod, "__all__", None) or []):
        return ["runner: calc." + inst["fn"] + " is not exported", "runner: modules in this project list their public functions in __all__"]
    files = sorted(glob.glob("tests/test_*.py"))
    if not mentions(files, inst["fn"]): return ["runner: collected 0 tests for " + inst["fn"]]
    return run_tests(files)`),
    naive,
    right: (i) =>
      appendDef(i, { after: `\n\n__all__ = list(globals().get("__all__", [])) + [${py(i.fn)}]\n` }) +
      writeTest(i),
    key: () => "public functions in __all__",
    lesson: () =>
      "Modules in this project list their public functions in __all__: add each new function's name to it.",
    bad: () => "Modules in this project do not define __all__; everything public is exported.",
  },
  {
    id: "test-base-class",
    category: "test-runner quirk",
    title: "test classes subclass the project's base case",
    conv: (r) => ({ shift: r.int(0, 6), cls: r.pick(["ProjectCase", "BaseCase", "CalcCase"]) }),
    instance: (r, i, conv, stem) =>
      addFunction(r, i, conv, stem, {
        "tests/base.py": `import unittest\n\n\nclass ${conv.cls}(unittest.TestCase):\n    """Sets up what every test of this project needs."""\n`,
      }),
    check: check(`    files = sorted(glob.glob("tests/test_*.py"))
    if not mentions(files, inst["fn"]): return ["runner: collected 0 tests for " + inst["fn"]]
    sys.path.insert(0, os.getcwd())
    base = getattr(importlib.import_module("tests.base"), conv["cls"])
    cases = [c for f in files for c in vars(importlib.import_module(f[:-3].replace("/", "."))).values()
             if isinstance(c, type) and issubclass(c, unittest.TestCase) and c is not base]
    if not cases or not all(issubclass(c, base) for c in cases):
        return ["runner: a test class does not subclass " + conv["cls"], "runner: test classes in this project subclass tests.base.%s" % conv["cls"]]
    return run_tests(files)`),
    naive,
    right: (i, c) =>
      appendDef(i) + writeTest(i, { base: c.cls, imports: `from tests.base import ${c.cls}\n` }),
    key: (c) => `subclass tests.base.${c.cls}`,
    lesson: (c) =>
      `Test classes in this project subclass tests.base.${c.cls} (not unittest.TestCase directly).`,
    bad: () => "Test classes in this project subclass unittest.TestCase directly.",
  },
];
