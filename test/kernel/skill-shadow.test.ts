// Which skill packages a local kernel cannot import, as the host tells it before the kernel starts
// (src/kernel/skill-shadow.ts), checked against what the kernel's own Python says (relm.skillpath).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RELM_PYTHON_DIR, shadowedSkillFolders } from "../../src/kernel/index.js";
import { tempDir, testPython } from "./helpers.js";

/** A skill folder as learning writes one: FOLDER/MODULE/__init__.py, MODULE its name with '_' for '-'. */
function skill(root: string, name: string): string {
  const folder = path.join(root, name);
  const module = path.join(folder, name.replace(/-/g, "_"));
  mkdirSync(module, { recursive: true });
  writeFileSync(path.join(module, "__init__.py"), "WHERE = 'skill'\n");
  return folder;
}

/** The folders the kernel's Python reports shadowed (skillpath.install), run as a kernel is. */
function kernelSays(python: string, folders: string[], cwd: string, pythonPath: string): string[] {
  const code =
    "import json; from relm import skillpath; print(json.dumps([f for f, _ in skillpath.install()]))";
  const env = {
    ...process.env,
    PYTHONPATH: `${RELM_PYTHON_DIR}${path.delimiter}${pythonPath}`,
    RELM_SKILL_PATH: folders.join(path.delimiter),
  };
  return JSON.parse(execFileSync(python, ["-c", code], { cwd, env, encoding: "utf8" })) as string[];
}

describe("shadowedSkillFolders", () => {
  it("names the skills a module of the interpreter, the project, relm or PYTHONPATH comes before, as the kernel does", async () => {
    const python = await testPython();
    const [project, extra, skills] = await Promise.all([tempDir(), tempDir(), tempDir()]);
    writeFileSync(path.join(project, "notes.py"), "");
    writeFileSync(path.join(project, "my_tool.py"), "");
    mkdirSync(path.join(project, "pkg"));
    writeFileSync(path.join(project, "pkg", "__init__.py"), "");
    mkdirSync(path.join(project, "portion")); // no __init__.py: a namespace portion, which a package comes before
    writeFileSync(path.join(extra, "from_env.py"), "");
    const names = ["json", "sys", "notes", "my-tool", "pkg", "portion", "relm", "from_env", "free_skill"];
    const folders = names.map((name) => skill(skills, name));

    const host = shadowedSkillFolders(folders, python, project, { PYTHONPATH: extra });
    const shadowed = ["json", "sys", "notes", "my-tool", "pkg", "relm", "from_env"];
    expect(host?.map((f) => path.basename(f))).toEqual(shadowed);
    expect(host).toEqual(kernelSays(python.path, folders, project, extra));
  });

  it("cannot tell without the interpreter's module listing (a probe from elsewhere): the kernel must", async () => {
    const skills = await tempDir();
    const python = { path: "/usr/bin/python3", version: "3.11.2", ipython: null };
    expect(shadowedSkillFolders([skill(skills, "json")], python, skills, {})).toBeUndefined();
  });
});
