// What sandboxed code leaves in the project for the host to run later (docs/sandbox.md, the trust rule):
// a cell in a --sandbox session writes files, and a later command the user runs in that project (another
// session's start, relm doctor) must not run them outside the sandbox. Real bubblewrap, real kernels, the
// scripted model over HTTP. A marker in the host's /tmp could only be made outside the sandbox (its /tmp
// is a private tmpfs).
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { hostMarkers, BWRAP as linux } from "../../support/sandbox.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

/** A path in the host's /tmp that only a process outside the sandbox could create. */
const hostMarker = hostMarkers("relm-plant");

/** A cell that writes `files` (relative to the project) and prints "planted". */
function plantCell(files: Record<string, string>): string {
  return [
    "import os",
    ...Object.entries(files).flatMap(([name, text]) => [
      `os.makedirs(os.path.dirname(${JSON.stringify(name)}) or '.', exist_ok=True)`,
      `open(${JSON.stringify(name)}, 'w').write(${JSON.stringify(text)})`,
    ]),
    "print('planted')",
  ].join("\n");
}

describe.skipIf(!linux)("files a sandboxed cell plants in the project", () => {
  it("a module named like one relm's own Python imports (json.py) is never run by the host's Python", async () => {
    const marker = hostMarker("json");
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: plant": [
          {
            code: plantCell({
              // Shadows the standard library's json for any Python started in the project with -c.
              "json.py": `open(${JSON.stringify(marker)}, 'w').write('ran on the host')\n`,
              // A skill with a package, so that relm doctor asks the kernels' Python about it.
              ".agents/skills/tally/SKILL.md": "---\ndescription: counts things\n---\nUse tally.count().\n",
              ".agents/skills/tally/tally/__init__.py": "def count(xs):\n    return len(xs)\n",
            }),
          },
          echoLastCell,
        ],
        "ROOT: again": [{ text: "fine" }],
      }),
    });
    const planted = await runRelm(["run", "--sandbox", "ROOT: plant"], { env: rig.env, cwd: rig.cwd });
    expect(planted.code, planted.stderr).toBe(0);
    expect(planted.stdout).toContain("planted");
    expect(existsSync(join(rig.cwd, "json.py"))).toBe(true);
    expect(existsSync(marker)).toBe(false);

    // The next session's interpreter probe (the cached answer gone, as after a Python upgrade).
    rmSync(join(rig.home, "cache", "python.json"), { force: true });
    const again = await runRelm(["run", "--sandbox", "ROOT: again"], { env: rig.env, cwd: rig.cwd });
    expect(existsSync(marker), "the session's interpreter probe imported the project's json.py").toBe(false);
    expect(again.code, again.stderr).toBe(0);

    // relm doctor's skills line: the kernels' Python is asked about `tally` (the interpreter's answer is
    // cached again, so this is the only Python doctor runs).
    const doctor = await runRelm(["doctor"], { env: rig.env, cwd: rig.cwd });
    expect(doctor.stdout).toMatch(/skills +1 found, none left out/);
    expect(existsSync(marker), "relm doctor imported the project's json.py").toBe(false);
  });

  it("a FIFO or a huge sparse file in place of a file the host reads does not hang or break the next session", async () => {
    // Each name is one the host reads at a session's start (AGENTS.md, skills, specs, .gitmodules at the
    // sandbox's opening, hooks, MCP servers): a FIFO blocked the plain read forever (the next relm run in
    // the project hung without a word), and a sparse file of 600 MB costs seconds and cannot become one string.
    const plant = (fifos: string[], huge: string[]) => [
      "import os",
      `for name in ${JSON.stringify([...fifos, ...huge])}:`,
      "    os.makedirs(os.path.dirname(name) or '.', exist_ok=True)",
      `for name in ${JSON.stringify(fifos)}:`,
      "    os.mkfifo(name)",
      `for name in ${JSON.stringify(huge)}:`,
      "    with open(name, 'w') as f:",
      "        f.truncate(600 * 1024 * 1024)",
      "print('planted')",
    ];
    const rig = await startRig("openai", {
      script: byTask({
        // .relm/ does not exist yet, so this sandbox leaves it writable (docs/sandbox.md).
        "ROOT: plant settings": [
          {
            code: plant(
              [".mcp.json", ".relm/harness/revisions.jsonl", ".relm/agents/a.yaml"],
              [".relm/hooks.json"],
            ).join("\n"),
          },
          echoLastCell,
        ],
        "ROOT: plant": [
          {
            code: plant(
              ["AGENTS.md", ".gitmodules", ".agents/skills/f/SKILL.md"],
              [".agents/skills/big/SKILL.md"],
            ).join("\n"),
          },
          echoLastCell,
        ],
        "ROOT: again": [{ text: "still fine" }],
      }),
    });
    const run = (task: string) =>
      runRelm(["run", "--sandbox", task], { env: rig.env, cwd: rig.cwd, timeoutMs: 120_000 });
    const settings = await run("ROOT: plant settings");
    expect(settings.stdout, settings.stderr).toContain("planted");
    // Settings that say what to run, and the harness's log: the session stops at once, naming the file.
    const stopped = await run("ROOT: again");
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(
      /(\.mcp\.json is a FIFO, not a regular file|revisions\.jsonl is a FIFO, not a regular file|hooks\.json is 629145600 bytes, more than the \d+ relm reads of it)/,
    );
    // The person removes them, as told; the spec stays (listed for the prompt, it is left out).
    for (const name of [".mcp.json", ".relm/harness/revisions.jsonl", ".relm/hooks.json"])
      rmSync(join(rig.cwd, name));
    const planted = await run("ROOT: plant");
    expect(planted.stdout, planted.stderr).toContain("planted");
    // Left out, each said why; the session runs.
    const again = await run("ROOT: again");
    expect(again.stdout.trim(), again.stderr).toBe("still fine");
    expect(again.stderr).toContain(
      `skill ${join(rig.cwd, ".agents/skills/f/SKILL.md")} is left out: is a FIFO`,
    );
    expect(again.stderr).toMatch(/skills\/big\/SKILL\.md is left out: is 629145600 bytes, more than/);
  });

  it("a link planted at AGENTS.md does not bring what the sandbox hides (config.json's key) into the prompt", async () => {
    const key = "sk-config-hidden-0123456789";
    const rig = await startRig(
      "openai",
      {
        script: byTask({
          "ROOT: plant": [
            {
              code: [
                "import os",
                "home = os.environ.get('RELM_HOME') or os.path.expanduser('~/.relm')",
                // The kernel cannot read it (the sandbox hides RELM_HOME)...
                "try:",
                "    open(os.path.join(home, 'config.json')).read(); print('read it')",
                "except OSError as e:",
                "    print('hidden:', type(e).__name__)",
                // ...but the host reads AGENTS.md into the next session's prompt, through a link.
                "os.symlink(os.path.join(home, 'config.json'), 'AGENTS.md')",
                "print('planted')",
              ].join("\n"),
            },
            echoLastCell,
          ],
          "ROOT: again": [{ text: "still fine" }],
        }),
      },
      { config: { apiKey: key } },
    );
    const planted = await runRelm(["run", "--sandbox", "--pass-env", "RELM_HOME", "ROOT: plant"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(planted.stdout, planted.stderr).toContain("hidden:");
    expect(planted.stdout).toContain("planted");
    const again = await runRelm(["run", "--sandbox", "ROOT: again"], { env: rig.env, cwd: rig.cwd });
    expect(again.code, again.stderr).toBe(0);
    const asked = rig.bodies().filter((b) => b.includes("ROOT: again"));
    expect(asked.length).toBeGreaterThan(0);
    for (const body of asked) expect(body).not.toContain(key);
  });
});
