// Checks the bench's own data without relm or a model: for every instance, the plain solution fails its
// gate with a last line stating the convention (the family's key), the right solution passes, the key
// is in the expert lesson and nowhere in the task or the bad lesson; every control's solution passes.
// `node bench/learning/run.mjs --self-check` runs it; so does test/learning/bench.test.ts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeProject, stage, writeGates } from "./project.mjs";

/**
 * Environment for relm, its kernels and gates: none of the variables a family's convention sets, and
 * none of the user's own RELM_* settings (the runner sets the model, endpoint and home itself).
 */
export function benchEnv(base = process.env) {
  const env = { ...base };
  for (const k of Object.keys(env)) if (/^(APP_ENV|REPORT_|RELM_)/.test(k)) delete env[k];
  return env;
}

/** The interpreter `python3` resolves to, by its full path (so no version-manager shim runs per gate). */
export function resolvePython(name = "python3") {
  const r = spawnSync(name, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" });
  const path = r.stdout.trim();
  if (r.status !== 0 || !path) throw new Error(`cannot run ${name}: ${r.stderr || r.error?.message}`);
  return path;
}

function python(exe, code, cwd) {
  return spawnSync(exe, ["-c", code], { cwd, env: benchEnv(), encoding: "utf8" });
}

function gate(command, cwd) {
  const r = spawnSync("/bin/sh", ["-c", command], { cwd, env: benchEnv(), encoding: "utf8" });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

/** Problems found in the project of `family` for `seed` (empty when all is well). */
export function checkProject(family, seed, k, exe = resolvePython()) {
  const problems = [];
  const project = makeProject(family, seed, k);
  const dir = mkdtempSync(join(tmpdir(), "relm-learning-check-"));
  const work = join(dir, "project");
  try {
    const gates = writeGates(project, join(dir, "gates"), exe);
    const { key, lesson, bad } = project;
    if (!lesson.includes(key)) problems.push(`${family.id}: the lesson does not state the key "${key}"`);
    if (bad.includes(key)) problems.push(`${family.id}: the bad lesson states the key`);
    project.instances.forEach((inst, i) => {
      const where = `${family.id} seed ${seed} instance ${inst.id}`;
      if (inst.task.includes(key)) problems.push(`${where}: the task gives the convention away`);
      for (const [kind, code] of [
        ["plain", family.naive(inst, project.conv)],
        ["right", family.right(inst, project.conv)],
      ]) {
        stage(work, inst.files);
        const ran = python(exe, code, work);
        const result = gate(gates.instance(i), work);
        if (kind === "right" && !result.ok)
          problems.push(`${where}: the right solution fails: ${ran.stderr}${result.out}`.trim());
        if (kind === "plain") {
          const last = result.out.trim().split("\n").at(-1) ?? "";
          if (result.ok) problems.push(`${where}: the plain solution passes`);
          else if (!last.includes(key))
            problems.push(`${where}: the gate's last line does not state "${key}": ${last}`);
        }
      }
    });
    stage(work, project.control.files);
    python(exe, project.control.solve(project.control), work);
    const result = gate(gates.control, work);
    if (!result.ok) problems.push(`${family.id} seed ${seed} control: its solution fails: ${result.out}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return problems;
}
