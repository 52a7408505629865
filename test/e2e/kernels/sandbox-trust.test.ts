// The trust boundary of `--sandbox` (issue 19): nothing the confined side writes or chooses may make the
// host run code outside the sandbox. Real bubblewrap, real kernels, the scripted model over HTTP. Each
// escape would leave a marker file in the host's /tmp (the sandbox's /tmp is a private tmpfs, so a marker
// there could only have been made outside it).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { hostMarkers, BWRAP as linux } from "../../support/sandbox.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

/** A path in the host's /tmp that only a process outside the sandbox could create. */
const hostMarker = hostMarkers("relm-escape");

/** Python that runs `call` and prints what became of it: its refusal, or "ran". */
function attempt(label: string, call: string): string[] {
  return [
    "try:",
    `    ${call}`,
    `    print(${JSON.stringify(`${label}: ran`)})`,
    "except Exception as e:",
    `    print(${JSON.stringify(`${label}:`)}, type(e).__name__, e)`,
  ];
}

describe.skipIf(!linux)("relm run --sandbox: what the confined side chooses does not steer the host", () => {
  it("refuses a kernel= chosen in a cell (rlm, rlm.spawn, rlm.map) before its launcher runs", async () => {
    const a = hostMarker("rlm");
    const b = hostMarker("spawn");
    const c = hostMarker("map");
    const cmd = (marker: string) => JSON.stringify(`cmd:sh -c 'touch ${marker}'`);
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: escape": [
          {
            code: [
              ...attempt("rlm", `rlm('CHILD: never', kernel=${cmd(a)})`),
              ...attempt("spawn", `rlm.spawn('CHILD: never', kernel=${cmd(b)}).result()`),
              ...attempt("map", `rlm.map('CHILD: never', [1, 2], kernel=${cmd(c)})`),
              // The tree's own launcher is still fine: the child runs, inside the sandbox.
              "print('local:', rlm('CHILD: where', kernel='local'))",
            ].join("\n"),
          },
          echoLastCell,
        ],
        "CHILD: where": [{ code: "import os\nsubmit(os.environ.get('RELM_IN_SANDBOX'))" }],
        "CHILD: never": [{ text: "a child that should not have started" }],
      }),
    });
    const result = await runRelm(["run", "--sandbox", "ROOT: escape"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    for (const marker of [a, b, c]) expect(existsSync(marker), marker).toBe(false);
    const lines = result.stdout.trim().split("\n");
    for (const [i, label] of ["rlm", "spawn", "map"].entries()) {
      expect(lines[i]).toMatch(
        new RegExp(
          `^${label}: PermissionError rlm kernel=: kernel "cmd:sh -c 'touch [^']+'" refused: this session runs with --sandbox, and that kernel would start a command on the host, outside the sandbox\\..*Leave kernel= out`,
        ),
      );
    }
    expect(lines[3]).toBe("local: workspace");
    // Nothing was started for the refused calls: no child ever asked the model about its task.
    const children = rig.model.requests.filter((r) => !r.rawBody.includes("ROOT: escape"));
    expect(children.filter((r) => r.rawBody.includes("CHILD: never"))).toHaveLength(0);
    expect(children.filter((r) => r.rawBody.includes("CHILD: where")).length).toBeGreaterThan(0);
  });

  it("refuses a project spec's kernel: that a cell wrote, naming the spec file", async () => {
    const marker = hostMarker("spec");
    const spec = `description: planted\nkernel: "cmd:sh -c 'touch ${marker}'"\n`;
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: plant a spec": [
          {
            code: [
              "import os",
              "os.makedirs('.relm/agents', exist_ok=True)",
              `open('.relm/agents/evil.yaml', 'w').write(${JSON.stringify(spec)})`,
              ...attempt("spawn", "rlm.spawn('CHILD: never', spec='evil').result()"),
              ...attempt("rlm", "rlm('CHILD: never', spec='evil')"),
            ].join("\n"),
          },
          echoLastCell,
        ],
        "CHILD: never": [{ text: "a child that should not have started" }],
      }),
    });
    const result = await runRelm(["run", "--sandbox", "ROOT: plant a spec"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const file = join(rig.cwd, ".relm", "agents", "evil.yaml");
    for (const line of result.stdout.trim().split("\n")) {
      expect(line).toContain(
        `PermissionError agent spec "evil" (${file}): kernel "cmd:sh -c 'touch ${marker}'" refused: this session runs with --sandbox`,
      );
      expect(line).toContain("its kernel: is not trusted here");
    }
  });

  it("probes a python3 on PATH inside the project (an activated venv) only inside a confinement", async () => {
    const marker = hostMarker("python-probe");
    const rig = await startRig("openai", {
      script: byTask({ "ROOT: which python": [{ code: "import sys; print(sys.executable)" }, echoLastCell] }),
    });
    // What sandboxed code could have left in an activated venv: a python3 that first does something.
    const bin = join(rig.cwd, "venv", "bin");
    mkdirSync(bin, { recursive: true });
    const planted = join(bin, "python3");
    writeFileSync(planted, `#!/bin/sh\ntouch ${marker} 2>/dev/null\nexec /usr/bin/python3 "$@"\n`, {
      mode: 0o755,
    });
    const env: NodeJS.ProcessEnv = { ...rig.env, PATH: `${bin}:${rig.env.PATH ?? process.env.PATH}` };
    delete env.RELM_PYTHON;
    const result = await runRelm(["run", "--sandbox", "ROOT: which python"], { env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    // The kernel ran (inside the sandbox), but nothing of the planted file ran on the host.
    expect(result.stdout).toContain("/usr/bin/python3");
    expect(existsSync(marker)).toBe(false);
    // Without --sandbox the project is trusted as the user's own: the same file is probed as it always
    // was (once the cached answer is gone), which shows the check above could have failed.
    rmSync(join(rig.home, "cache", "python.json"), { force: true });
    const open = await runRelm(["run", "ROOT: which python"], { env, cwd: rig.cwd });
    expect(open.code, open.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it("a spec that names the session's own --kernel is the user's choice and runs", async () => {
    // `cmd:env RELM_VIA=cmd` runs the kernel through env(1) on the host: the user asked for it.
    const uri = "cmd:env RELM_VIA=cmd";
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: use the spec": [{ code: "print(rlm('CHILD: via', spec='remote'))" }, echoLastCell],
        "CHILD: via": [{ code: "import os\nsubmit(os.environ.get('RELM_VIA'))" }],
      }),
    });
    mkdirSync(join(rig.cwd, ".relm", "agents"), { recursive: true });
    writeFileSync(
      join(rig.cwd, ".relm", "agents", "remote.yaml"),
      `description: runs where the user said\nkernel: "${uri}"\n`,
    );
    const result = await runRelm(["run", "--sandbox", "--kernel", uri, "ROOT: use the spec"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("cmd");
  });

  it("runs a sandboxed session's gates inside its sandbox, with exit codes and output as before", async () => {
    const marker = hostMarker("gate");
    // What the cell makes of the gate's script: code that would run on the host if the gate did.
    const planted = [
      `touch ${marker}`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions
      'echo "in:${RELM_IN_SANDBOX:-host} token:${GATE_TEST_TOKEN:-none}"',
      "echo ran > gate-ran.txt",
      "exit 0",
    ].join("\n");
    const rig = await startRig(
      "openai",
      {
        script: byTask({
          "ROOT: pass the gate": [
            { text: "done" },
            { code: `open('check.sh', 'w').write(${JSON.stringify(`${planted}\n`)})` },
            { text: "done now" },
          ],
        }),
      },
      { env: { GATE_TEST_TOKEN: "sekrit-gate-token" } },
    );
    writeFileSync(join(rig.cwd, "check.sh"), "echo failing; exit 3\n");
    const result = await runRelm(["run", "--sandbox", "--gate", "sh check.sh", "ROOT: pass the gate"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    // It ran, in the project (which is writable inside), and told the model its exit code as before.
    expect(existsSync(join(rig.cwd, "gate-ran.txt"))).toBe(true);
    const runs = onlyJournal(rig.home).lines.filter((l) => l.type === "gate_run") as unknown as {
      passed: boolean;
      results: { exitCode: number; output: string }[];
    }[];
    expect(runs.map((r) => [r.passed, r.results[0]?.exitCode, r.results[0]?.output])).toEqual([
      [false, 3, "failing\n"],
      [true, 0, "in:workspace token:none\n"],
    ]);
  });

  it("shows the project's .git (and its submodules'), .relm and .mcp.json read-only inside", async () => {
    const marker = hostMarker("git");
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: plant": [
          {
            code: [
              "import errno, os, subprocess",
              "r = []",
              "def attempt(name, fn):",
              "    try:",
              "        fn(); r.append(name + ':done')",
              "    except OSError as e:",
              "        r.append(name + ':' + errno.errorcode[e.errno])",
              `cfg = subprocess.run(['git', 'config', 'core.fsmonitor', ${JSON.stringify(`touch ${marker}; echo`)}], capture_output=True)`,
              "r.append('config:' + ('done' if cfg.returncode == 0 else 'failed'))",
              "attempt('hook', lambda: open('.git/hooks/post-checkout', 'w').write('#!/bin/sh\\ntouch x'))",
              "attempt('move-git', lambda: os.rename('.git', 'git-aside'))",
              "attempt('spec', lambda: open('.relm/agents/evil.yaml', 'w').write('description: x'))",
              "attempt('mcp', lambda: open('.mcp.json', 'w').write('{}'))",
              "attempt('sub-git', lambda: open('lib/sub/.git', 'w').write('gitdir: ../../evil'))",
              "attempt('move-sub', lambda: os.rename('lib/sub', 'lib/aside'))",
              "attempt('move-lib', lambda: os.rename('lib', 'lib-aside'))",
              "attempt('work', lambda: open('lib/sub/file.txt', 'w').write('edited'))",
              "attempt('new', lambda: open('new.txt', 'w').write('new'))",
              "print(' '.join(r))",
            ].join("\n"),
          },
          echoLastCell,
        ],
      }),
    });
    const env = { ...rig.env, GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@x", GIT_COMMITTER_NAME: "u" };
    const gitIn = (cwd: string, ...args: string[]) =>
      execFileSync("git", ["-c", "protocol.file.allow=always", ...args], {
        cwd,
        env: { ...env, GIT_COMMITTER_EMAIL: "u@x" },
        stdio: "pipe",
      });
    const upstream = join(rig.home, "upstream");
    mkdirSync(upstream);
    gitIn(upstream, "init", "-q");
    writeFileSync(join(upstream, "file.txt"), "upstream\n");
    gitIn(upstream, "add", "-A");
    gitIn(upstream, "commit", "-qm", "one");
    gitIn(rig.cwd, "init", "-q");
    gitIn(rig.cwd, "submodule", "add", "-q", upstream, "lib/sub");
    mkdirSync(join(rig.cwd, ".relm", "agents"), { recursive: true });
    writeFileSync(join(rig.cwd, ".mcp.json"), '{"mcpServers": {}}\n');
    gitIn(rig.cwd, "add", "-A");
    gitIn(rig.cwd, "commit", "-qm", "project");

    const result = await runRelm(["run", "--sandbox", "ROOT: plant"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(
      "config:failed hook:EROFS move-git:EBUSY spec:EROFS mcp:EROFS sub-git:EROFS move-sub:EBUSY " +
        "move-lib:EBUSY work:done new:done",
    );
    // The user's next git commands, in the project and in the submodule, run nothing planted.
    gitIn(rig.cwd, "status");
    gitIn(join(rig.cwd, "lib", "sub"), "status");
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(rig.cwd, "lib", "sub", ".git"), "utf8")).toMatch(/^gitdir: .*modules/);
    expect(existsSync(join(rig.cwd, ".relm", "agents", "evil.yaml"))).toBe(false);
  });

  it("says which of those files appeared where none was (they could not be read-only)", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: make a repository": [
          { code: "!git init -q\nimport os\nos.makedirs('.relm/agents')\nprint('made')" },
          echoLastCell,
        ],
      }),
    });
    const result = await runRelm(["run", "--sandbox", "ROOT: make a repository"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    const warnings = onlyJournal(rig.home)
      .lines.filter((l) => l.type === "warning")
      .map((l) => (l as unknown as { message: string }).message);
    expect(warnings).toEqual([
      `${join(rig.cwd, ".git")} appeared during this sandboxed session (it did not exist when the sandbox started, so sandboxed code can write it): treat it as untrusted; look at its config and hooks before you run git there (a core.fsmonitor, alias or hook in it runs with your rights)`,
      `${join(rig.cwd, ".relm")} appeared during this sandboxed session (it did not exist when the sandbox started, so sandboxed code can write it): treat it as untrusted; review its sub-agent specs, MCP servers and harness entries before a session without --sandbox uses them`,
    ]);
    expect(result.stderr).toContain(`⚠ ${join(rig.cwd, ".git")} appeared during this sandboxed session`);
  });
});
