// A family's project for one seed: its convention, five instances, one control task, the gate scripts
// (outside the project, so the convention is not in the files the agent is given), and staging of an
// instance's files into the project folder.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CONTROL_COUNT, control } from "./controls.mjs";
import { FAMILIES } from "./families/index.mjs";
import { py, rng, STEMS } from "./kit.mjs";

export const INSTANCES = 5;
/** Instances 1 and 2 are learnt from; 3–5 are held out. */
export const LEARN_FROM = 2;

/** The checker's prelude: helpers every family's `check(inst, conv)` may use. */
const PRELUDE = `import contextlib, doctest, glob, importlib, inspect, io, json, os, re, subprocess, sys, tempfile, unittest


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def reference(argv, env, strip, out):
    """What the project's tool writes when run the project's way (to a scratch file)."""
    fd, path = tempfile.mkstemp(suffix=".txt")
    os.close(fd)
    try:
        e = {k: v for k, v in os.environ.items() if k not in strip}
        e.update(env)
        r = subprocess.run([sys.executable] + [path if a == out else a for a in argv], env=e, capture_output=True, text=True)
        return read(path) if r.returncode == 0 else None
    finally:
        os.unlink(path)


def calc_fn(inst):
    sys.path.insert(0, os.getcwd())
    try:
        mod = importlib.import_module(inst["module"])
    except Exception as e:
        return None, ["runner: cannot import %s: %r" % (inst["module"], e)]
    fn = getattr(mod, inst["fn"], None)
    if fn is None:
        return None, ["runner: %s.%s does not exist" % (inst["module"], inst["fn"])]
    for x, y in inst["cases"]:
        try:
            got = fn(x)
        except Exception as e:
            return None, ["runner: %s(%r) raised %r" % (inst["fn"], x, e)]
        if got != y:
            return None, ["runner: %s(%r) returned %r" % (inst["fn"], x, got)]
    return mod, []


def mentions(files, word):
    return any(word in (read(f) or "") for f in files)


def run_tests(files):
    mods = [f[:-3].replace("/", ".") for f in files]
    r = subprocess.run([sys.executable, "-m", "unittest"] + mods, capture_output=True, text=True)
    if r.returncode != 0:
        return ["runner: the tests failed", r.stderr.strip()[-600:]]
    return []
`;

const MAIN = `

def main():
    inst = INSTANCES[sys.argv[1]]
    problems = check(inst, CONV)
    if problems:
        print("\\n".join(problems))
        sys.exit(1)
    print("ok")


main()
`;

/** The project of `family` for `seed`; `k` (its place in the family list) picks its control task. */
export function makeProject(family, seed, k) {
  const base = rng(`${seed}/${family.id}`);
  const conv = family.conv(base.fork("conv"));
  const stems = base.fork("stems").sample(STEMS, INSTANCES + 1);
  const instances = Array.from({ length: INSTANCES }, (_, i) => ({
    id: String(i + 1),
    ...family.instance(base.fork(`instance ${i}`), i, conv, stems[i]),
  }));
  const ctrl = { id: "control", ...control(k % CONTROL_COUNT, base.fork("control"), stems[INSTANCES]) };
  return {
    family,
    seed,
    conv,
    instances,
    control: ctrl,
    key: family.key(conv),
    lesson: family.lesson(conv),
    bad: family.bad(conv),
  };
}

/** JSON of what a checker needs of its instances (the files and functions stay behind). */
const forChecker = (list) =>
  Object.fromEntries(list.map(({ files, check, solve, ...rest }) => [rest.id, rest]));

/**
 * Writes the project's two gate scripts under `dir`; returns the gate command of each task, run by
 * `python` (an interpreter's full path: a version manager's shim can cost most of a second per gate).
 */
export function writeGates(project, dir, python = "python3") {
  mkdirSync(dir, { recursive: true });
  const checker = (check, conv, list) =>
    `#!/usr/bin/env python3\n# relm learning bench gate (generated).\n${PRELUDE}\nCONV = json.loads(${py(JSON.stringify(conv))})\nINSTANCES = json.loads(${py(JSON.stringify(forChecker(list)))})\n\n\n${check}\n${MAIN}`;
  writeFileSync(join(dir, "check.py"), checker(project.family.check, project.conv, project.instances));
  writeFileSync(join(dir, "control.py"), checker(project.control.check, {}, [project.control]));
  const quote = (p) => `'${p.replaceAll("'", "'\\''")}'`;
  return {
    instance: (i) => `${quote(python)} ${quote(join(dir, "check.py"))} ${project.instances[i].id}`,
    control: `${quote(python)} ${quote(join(dir, "control.py"))} control`,
  };
}

/**
 * Puts one task's files in the project folder, after removing everything but `.relm/` (the project's
 * harness, which must carry over) so no earlier instance's solution shows the next one the convention.
 */
export function stage(projectDir, files) {
  mkdirSync(join(projectDir, ".relm"), { recursive: true });
  for (const name of readdirSync(projectDir)) {
    if (name !== ".relm") rmSync(join(projectDir, name), { recursive: true, force: true });
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(projectDir, path)), { recursive: true });
    writeFileSync(join(projectDir, path), text);
  }
}

export { FAMILIES };
