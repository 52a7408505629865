// `relm harness rm ID` of an entry whose id is in two scopes (a lesson copied with export | import): the
// whole id cannot be made more unique, so the message must point to --scope, and --scope must work.
import { describe, expect, it, onTestFinished } from "vitest";
import { cleanEnv, runRelm, tempDir } from "../../support/cli.js";

describe("relm harness rm of an id in two scopes", () => {
  it("says to name the scope, naming both; with --scope it removes only that one", async () => {
    const home = tempDir("relm-rm-home-");
    const cwd = tempDir("relm-rm-cwd-");
    onTestFinished(() => {
      home.cleanup();
      cwd.cleanup();
    });
    const relm = (...args: string[]) =>
      runRelm(["harness", ...args], { env: cleanEnv({ RELM_HOME: home.path }), cwd: cwd.path });
    const added = await relm("add", "memory", "Run the linter before committing", "--scope", "project");
    expect(added.code, added.stderr).toBe(0);
    const id = added.stdout.match(/add memory (\S+)/)?.[1] as string;
    const exported = await relm("export", "--scope", "project", id);
    const copied = await runRelm(["harness", "import", "-", "--scope", "user"], {
      env: cleanEnv({ RELM_HOME: home.path }),
      cwd: cwd.path,
      input: exported.stdout,
    });
    expect(copied.code, copied.stderr).toBe(0);

    const both = await relm("rm", id);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(
      `relm: entry "${id}" is in more than one place: ${id} (user), ${id} (project); say which with --scope user or --scope project\n`,
    );
    const one = await relm("rm", id, "--scope", "user");
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain("removed from the user scope");
    const list = await relm("list", "--json");
    expect(list.stdout).toContain(id); // the project's copy is still there
  });
});
