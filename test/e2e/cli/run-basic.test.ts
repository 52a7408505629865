import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { type Format, useRigs } from "../../support/scripted.js";

const startRig = useRigs();

const combos: [Format, boolean][] = [
  ["openai", true],
  ["openai", false],
  ["anthropic", true],
  ["anthropic", false],
];

describe.each(combos)("relm run over %s (streaming %s)", (format, stream) => {
  it("runs a real cell and answers with what the kernel computed", async () => {
    const rig = await startRig(
      format,
      {
        script: [
          { code: "x = 6 * 7\nprint('the answer is', x)" },
          (ctx) => ({ text: `Kernel said: ${ctx.lastToolResult?.trim()}` }),
        ],
      },
      { stream },
    );
    const result = await runRelm(["run", "compute six times seven"], { env: rig.env, cwd: rig.cwd });
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("Kernel said: the answer is 42");
    expect(rig.model.requests).toHaveLength(2);
    expect(rig.model.requests[1]?.rawBody).toContain("the answer is 42");

    const { lines } = onlyJournal(rig.home);
    expect(lines[0]?.type).toBe("header");
    const types = lines.slice(1).map((l) => l.type);
    expect(types).toContain("cell");
    expect(types).toContain("cell_output");
    // The end of the work: the answer, then the notification that it finished (docs/hooks.md). The first
    // checkpoint is taken while the first cell runs, and may be journaled when it is done, after them.
    expect(types.filter((t) => t !== "checkpoint").slice(-2)).toEqual(["final", "notification"]);
    expect(lines.slice(1).map((l) => l.n)).toEqual(lines.slice(1).map((_, i) => i + 1));
  });
});

describe("shell output reaches the model", () => {
  it("captures !echo, %%bash, os.system and subprocess output", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "!echo from-bang-$((40+2))" },
        { code: "%%bash\necho from-bash-cell\nls /definitely-missing-dir 2>&1 | head -1 >&2" },
        {
          code: "import os, subprocess\nos.system('echo from-os-system')\nsubprocess.run(['echo', 'from-subprocess'])",
        },
        { text: "done" },
      ],
    });
    const result = await runRelm(["run", "shell test"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(0);
    const bodies = rig.bodies();
    expect(bodies[1]).toContain("from-bang-42");
    expect(bodies[2]).toContain("from-bash-cell");
    expect(bodies[2]).toContain("definitely-missing-dir");
    expect(bodies[3]).toContain("from-os-system");
    expect(bodies[3]).toContain("from-subprocess");
  });
});
