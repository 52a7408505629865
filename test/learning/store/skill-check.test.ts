// A SKILL.md relm cannot read as a skill is reported with the reason and the line, never dropped silently.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkSkillFile, findSkills } from "../../../src/learning/store/index.js";
import { tempDir } from "../../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(files: Record<string, string>): string {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  mkdirSync(join(dir.path, ".relm"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir.path, ".relm", "skills", name), { recursive: true });
    writeFileSync(join(dir.path, ".relm", "skills", name, "SKILL.md"), text);
  }
  return dir.path;
}

describe("SKILL.md front matter", () => {
  it("says what is wrong, with the file's line number for YAML errors", () => {
    const cwd = project({
      good: "---\nname: good\ndescription: Works.\n---\n# good\n",
      yaml: "---\nname: yaml\ndescription: [unclosed\n---\n",
      none: "# just markdown\n",
      list: "---\n- a\n- b\n---\n",
      nodesc: "---\nname: nodesc\n---\n",
      emptydesc: '---\ndescription: ""\n---\n',
      badname: "---\nname: [1, 2]\ndescription: fine\n---\n",
    });
    const check = (name: string) => checkSkillFile(join(cwd, ".relm", "skills", name, "SKILL.md"));
    expect(check("good")).toEqual({ name: "good", description: "Works." });
    expect(check("yaml")).toEqual({
      problem: expect.stringMatching(
        /^front matter line 3 is not valid YAML: Flow sequence .* end with a \]$/,
      ),
    });
    expect(check("none")).toEqual({
      problem: "has no front matter: it must start with a line `---`, YAML, and `---`",
    });
    expect(check("list")).toEqual({ problem: "front matter must be a YAML mapping with a description" });
    expect(check("nodesc")).toEqual({ problem: "front matter has no description (the model is shown it)" });
    expect(check("emptydesc")).toEqual({ problem: "front matter's description must be non-empty text" });
    expect(check("badname")).toMatchObject({ problem: /name must be non-empty text/ });
    expect(check("missing")).toBeUndefined(); // no SKILL.md: not a skill at all

    const found = findSkills({ cwd, home: join(cwd, "home") });
    expect(found.skills.map((s) => s.name)).toEqual(["good"]);
    expect(found.problems.map((p) => p.path.split("/").at(-2)).sort()).toEqual(
      ["badname", "emptydesc", "list", "nodesc", "none", "yaml"].sort(),
    );
    expect(found.problems.every((p) => p.scope === "project")).toBe(true);
  });
});
