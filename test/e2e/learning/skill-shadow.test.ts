// A skill named like a module Python already has (json here) must never be what `import json` gives: skill
// folders go after the standard library and installed packages (python/relm/skillpath.py), so the
// session works, and the person is told why the skill is not used (relm doctor, a warning at the start).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { probeSandbox } from "../../../src/kernel/sandbox/index.js";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

function writeSkill(root: string, name: string, code: string): string {
  const folder = join(root, ".relm", "skills", name);
  mkdirSync(join(folder, name), { recursive: true });
  writeFileSync(join(folder, "SKILL.md"), `---\nname: ${name}\ndescription: The ${name} skill.\n---\n`);
  writeFileSync(join(folder, name, "__init__.py"), code);
  return folder;
}

describe("a hand-written skill named like a standard library module", () => {
  it("does not shadow it: the session works, the other skills import, doctor and the run say why", async () => {
    const cell = [
      "import json, words_skill",
      "print(json.dumps({'a': 1}), words_skill.count('a b c'))",
      "print('json from', json.__file__)",
    ].join("\n");
    const rig = await startRig("openai", { script: [{ code: cell }, echoLastCell], models: ["scripted"] });
    const folder = writeSkill(rig.cwd, "json", "raise RuntimeError('the json skill was imported')\n");
    writeSkill(rig.cwd, "words_skill", "def count(text):\n    return len(text.split())\n");

    const run = await runRelm(["run", "use json"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('{"a": 1} 3');
    expect(run.stdout).not.toContain(folder);
    const warning = new RegExp(
      `skill json \\(${folder}\\) is not used: \`import json\` gives the module at \\S+json/__init__.py`,
    );
    expect(run.stderr).toMatch(warning);

    // The model is not told to use what it cannot import: its first request already says which skill is
    // shadowed (the host's look at a local kernel, kernel/skill-shadow.ts), and the usable one stays
    // plainly listed.
    const first = JSON.parse(rig.model.requests[0]?.rawBody ?? "{}") as { messages: { content: string }[] };
    const system = first.messages[0]?.content ?? "";
    expect(system).toMatch(/- Skill json cannot be imported here: `import json` gives another module/);
    expect(system).toContain("- words_skill: The words_skill skill. (import words_skill)");
    expect(system).not.toMatch(/Skill words_skill cannot be imported/);

    const doctor = await runRelm(["doctor"], { env: rig.env, cwd: rig.cwd });
    expect(doctor.stdout).toMatch(new RegExp(`warn  skills    ${warning.source}`));
  });
});

/**
 * A folder for PYTHONPATH whose sitecustomize holds a kernel (its runner, or the template it is forked
 * from) until the session under `home` has journaled a model request, for at most a minute: a session
 * that waited for its kernel before its first request would then send it only after the kernel's start.
 */
function kernelGate(home: string): string {
  const dir = join(home, "gate");
  mkdirSync(dir);
  const code = [
    "import os, sys, time",
    "if {'relm.runner', 'relm.template'} & set(getattr(sys, 'orig_argv', [])):",
    `    sessions = ${JSON.stringify(join(home, "sessions"))}`,
    "    def requested():",
    "        for s in os.listdir(sessions) if os.path.isdir(sessions) else []:",
    "            try:",
    "                with open(os.path.join(sessions, s, 'journal.jsonl')) as f:",
    "                    if '\"model_request\"' in f.read():",
    "                        return True",
    "            except OSError:",
    "                pass",
    "        return False",
    "    end = time.monotonic() + 60",
    "    while not requested() and time.monotonic() < end:",
    "        time.sleep(0.02)",
  ];
  writeFileSync(join(dir, "sitecustomize.py"), `${code.join("\n")}\n`);
  return dir;
}

/** The first request's system prompt, and whether it was journaled before the kernel started. */
function firstRequest(rig: { home: string; model: { requests: { rawBody: string }[] } }) {
  const first = JSON.parse(rig.model.requests[0]?.rawBody ?? "{}") as { messages: { content: string }[] };
  const types = onlyJournal(rig.home).lines.map((l) => (l.type === "kernel" ? `kernel ${l.event}` : l.type));
  const requested = types.indexOf("model_request");
  const started = types.indexOf("kernel started");
  return { system: first.messages[0]?.content ?? "", beforeKernel: requested >= 0 && started > requested };
}

describe("a local session with skill packages", () => {
  it("sends its first request without waiting for its kernel, the skill plainly listed", async () => {
    const cell = "import words_skill\nprint('words:', words_skill.count('a b c'))";
    const rig = await startRig("openai", { script: [{ code: cell }, echoLastCell] });
    writeSkill(rig.cwd, "words_skill", "def count(text):\n    return len(text.split())\n");
    // A project folder of the name without __init__.py is a namespace portion: the skill comes before it.
    mkdirSync(join(rig.cwd, "words_skill"));
    const env = { ...rig.env, PYTHONPATH: kernelGate(rig.home) };
    const run = await runRelm(["run", "count"], { env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("words: 3");
    expect(run.stderr).not.toMatch(/is not used/);
    const first = firstRequest(rig);
    expect(first.beforeKernel).toBe(true);
    expect(first.system).toContain("- words_skill: The words_skill skill. (import words_skill)");
    expect(first.system).not.toMatch(/cannot be imported/);
  });

  it("says at once that a skill named like a module of the project cannot be imported", async () => {
    const cell = "import notes\nprint('notes from', notes.WHERE)";
    const rig = await startRig("openai", { script: [{ code: cell }, echoLastCell] });
    const folder = writeSkill(rig.cwd, "notes", "WHERE = 'the skill'\n");
    writeFileSync(join(rig.cwd, "notes.py"), "WHERE = 'the project'\n");
    const env = { ...rig.env, PYTHONPATH: kernelGate(rig.home) };
    const run = await runRelm(["run", "read the notes"], { env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("notes from the project");
    // The kernel's own check agrees with what the host told the model before it started.
    expect(run.stderr).toContain(`skill notes (${folder}) is not used: \`import notes\` gives the module at`);
    const first = firstRequest(rig);
    expect(first.beforeKernel).toBe(true);
    expect(first.system).toMatch(
      /- Skill notes cannot be imported here: `import notes` gives another module/,
    );
  });
});

describe.skipIf(!probeSandbox(process.env).ok)("skills of RELM_HOME in a sandboxed session", () => {
  it("are importable: the sandbox keeps the skill folders readable though RELM_HOME is hidden", async () => {
    const cell = "import home_skill\nprint('home skill says', home_skill.HELLO)";
    const rig = await startRig("openai", { script: [{ code: cell }, echoLastCell] });
    const folder = join(rig.home, "skills", "home_skill");
    mkdirSync(join(folder, "home_skill"), { recursive: true });
    writeFileSync(join(folder, "SKILL.md"), "---\nname: home_skill\ndescription: Says hello.\n---\n");
    writeFileSync(join(folder, "home_skill", "__init__.py"), "HELLO = 'hi'\n");
    const run = await runRelm(["run", "--mode", "workspace", "use it"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("home skill says hi");
  });
});
