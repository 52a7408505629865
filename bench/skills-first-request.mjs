// How long the first model request of a one-shot `relm run` waits after the task (the journal's `user` →
// first `model_request`), in a project with no skill package, one, and one shadowed by a project file:
// since the host tells a local kernel's shadowed skills itself (src/kernel/skill-shadow.ts), none of
// them waits for the kernel. Run after `npm run build`:
//   node bench/skills-first-request.mjs [rounds=4]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedModel } from "../dist/scripted/index.js";
import { measureAsync, median, ROOT, scriptedEnv, table } from "./lib.mjs";

const ROUNDS = Number(process.argv[2] ?? 4);
const model = await startScriptedModel({ script: () => ({ text: "done" }) });
const { home, env } = scriptedEnv(model);
env.RELM_MODE = "full";

function project(skill, shadowed) {
  const dir = mkdtempSync(join(tmpdir(), "relm-bench-skills-"));
  if (skill) {
    const folder = join(dir, ".relm", "skills", skill);
    mkdirSync(join(folder, skill), { recursive: true });
    writeFileSync(join(folder, "SKILL.md"), `---\nname: ${skill}\ndescription: The ${skill} skill.\n---\n`);
    writeFileSync(join(folder, skill, "__init__.py"), "");
  }
  if (shadowed) writeFileSync(join(dir, `${skill}.py`), "");
  return dir;
}

/** The journal's `user` → first `model_request`, in ms. */
function firstRequestWait(stderr) {
  const id = /session (\w+)/.exec(stderr)?.[1];
  const events = readFileSync(join(home, "sessions", id, "journal.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const user = events.find((e) => e.type === "user");
  const request = events.find((e) => e.type === "model_request");
  return Date.parse(request.t) - Date.parse(user.t);
}

const cases = {
  "no skill": project(undefined, false),
  "one skill": project("words_skill", false),
  "one shadowed by notes.py": project("notes", true),
};
const waits = {};
await measureAsync(process.execPath, [join(ROOT, "dist/cli/relm.cjs"), "run", "go"], env, cases["no skill"]);
for (let round = 0; round < ROUNDS; round++)
  for (const [name, cwd] of Object.entries(cases)) {
    const r = await measureAsync(process.execPath, [join(ROOT, "dist/cli/relm.cjs"), "run", "go"], env, cwd);
    waits[name] = [...(waits[name] ?? []), firstRequestWait(r.stderr)];
  }
table(
  Object.entries(waits).map(([name, ms]) => ({
    project: name,
    "user -> first model_request ms (median)": median(ms).toFixed(0),
    "min-max": `${Math.min(...ms)}-${Math.max(...ms)}`,
  })),
);
await model.close();
for (const dir of [home, ...Object.values(cases)]) rmSync(dir, { recursive: true, force: true });
