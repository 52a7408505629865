// /diff: the files this session changed, against its start (the first checkpoint), opened in $PAGER.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTui } from "../../support/tui.js";
import { until } from "../../support/wait.js";

const { startRig, open } = useTui();

describe("terminal UI /diff", () => {
  it("pages the session's file changes against its start, over several turns", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "open('notes.txt', 'w').write('one\\n')" },
        { text: "wrote one" },
        { code: "open('notes.txt', 'a').write('two\\n'); open('added.txt', 'w').write('new file\\n')" },
        { text: "wrote two" },
      ],
    });
    writeFileSync(join(rig.cwd, "notes.txt"), "zero\n");
    // A pager that keeps a copy of what it was given: the test reads it instead of a screen.
    const pager = join(rig.cwd, "..", "pager.sh");
    const paged = join(rig.cwd, "..", "paged.diff");
    writeFileSync(pager, `#!/bin/sh\ncp "$1" "${paged}"\n`);
    chmodSync(pager, 0o755);
    const ui = open(rig, [], { env: { ...rig.env, PAGER: pager } });
    await ui.waitFor("new session");
    await ui.type("/diff");
    await ui.press("enter");
    await ui.waitFor("no file changes yet: the session starts with your first message");
    for (const [task, answer] of [
      ["write one", "wrote one"],
      ["write two", "wrote two"],
    ]) {
      await ui.type(task as string);
      await ui.press("enter");
      await ui.waitFor(answer as string);
    }
    await ui.type("/diff");
    await ui.press("enter");
    await ui.waitFor("2 file(s) changed since the session's start: +3 −1");
    const patch = await until(() => {
      try {
        return readFileSync(paged, "utf8");
      } catch {
        return undefined;
      }
    });
    expect(patch).toContain("-zero");
    expect(patch).toContain("+one");
    expect(patch).toContain("+two");
    expect(patch).toMatch(/\+\+\+ b\/added\.txt[\s\S]*\+new file/);
  });
});
