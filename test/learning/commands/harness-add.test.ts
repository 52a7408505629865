// `relm harness add KIND CONTENT`: a skill or a sub-agent spec is named by --title; one added without it
// is a usage error that names the flag.
import { afterEach, describe, expect, it } from "vitest";
import { addCommand } from "../../../src/learning/commands/harness-actions.js";
import { HarnessStore, scopeLocation } from "../../../src/learning/store/index.js";
import { capturedIo, tempDir } from "../../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("relm harness add", () => {
  it("a skill or an agent without --title is a usage error naming the flag; nothing is written", async () => {
    const home = tempDir("relm-add-home-");
    const cwd = tempDir("relm-add-cwd-");
    cleanups.push(home.cleanup, cwd.cleanup);
    const io = () => capturedIo({ RELM_HOME: home.path }, cwd.path);
    for (const kind of ["skill", "agent"]) {
      const { err, io: streams } = io();
      const code = await addCommand(kind, "what it does", {}, streams);
      expect(code).toBe(2);
      expect(err()).toContain(`--title NAME`);
    }
    const project = new HarnessStore(scopeLocation("project", { cwd: cwd.path, home: home.path }));
    expect(project.revisions()).toEqual([]);

    const { out, io: streams } = io();
    expect(await addCommand("skill", "what it does", { title: "my_skill" }, streams)).toBe(0);
    expect(out()).toContain("added to the project scope");
  });
});
