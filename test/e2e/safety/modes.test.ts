// Permission modes end to end (docs/sandbox.md, "Permission modes"): real bubblewrap, real kernels, the
// scripted model over HTTP. Each mode's writes; the default where bubblewrap works and where it does
// not (a bwrap that fails as on a machine without user namespaces, and a PATH without bwrap); a /mode
// switch mid-session that keeps the kernel's variables; sub-agents that inherit and can only narrow.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { initialize, startEditor, updatesOf } from "../../support/acp-editor.js";
import { runRelm } from "../../support/cli.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { BWRAP, outsideFolder } from "../../support/sandbox.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const linux = BWRAP;

const elsewhere = outsideFolder(".relm-modes-e2e-");
const scratch = mkdtempSync(join(tmpdir(), "relm-modes-bin-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A cell that tries to write a file in the project and one outside it, and prints what happened. */
function writesCell(tag: string): string {
  return [
    "r = []",
    `for where, path in (('inside', 'in-${tag}'), ('outside', ${JSON.stringify(join(elsewhere, `out-${tag}`))})):`,
    "    try:",
    "        open(path, 'w').write('x'); r.append(where + ':yes')",
    "    except OSError as e:",
    "        r.append(where + ':' + e.strerror)",
    "print(' '.join(r))",
  ].join("\n");
}

async function writesRig(tag: string) {
  return startRig("openai", { script: [{ code: writesCell(tag) }, echoLastCell] });
}

const RO = "Read-only file system";

/**
 * A bubblewrap that is installed but cannot make namespaces, as on a machine whose kernel forbids
 * unprivileged user namespaces: it answers --version and fails every sandbox with bwrap's own message.
 */
function failingBwrap(): string {
  const file = join(scratch, "bwrap");
  writeFileSync(
    file,
    '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "bubblewrap 0.8.0"; exit 0; fi\n' +
      'echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
  );
  chmodSync(file, 0o755);
  return file;
}

/** A PATH with every program of /usr/bin and /bin but bubblewrap. */
function pathWithoutBwrap(): string {
  const dir = join(scratch, "path");
  if (!existsSync(dir)) {
    mkdirSync(dir);
    for (const from of ["/usr/bin", "/bin"]) {
      if (!existsSync(from)) continue;
      for (const name of readdirSync(from)) {
        if (name === "bwrap" || existsSync(join(dir, name))) continue;
        symlinkSync(join(from, name), join(dir, name));
      }
    }
  }
  return dir;
}

describe.skipIf(!linux)("permission modes under bubblewrap", () => {
  it("full writes anywhere; workspace only in the project; plan nowhere", async () => {
    for (const [mode, expected] of [
      ["full", "inside:yes outside:yes"],
      ["workspace", `inside:yes outside:${RO}`],
      ["plan", `inside:${RO} outside:${RO}`],
    ] as const) {
      const rig = await writesRig(mode);
      const result = await runRelm(["run", "--mode", mode, "write"], { env: rig.env, cwd: rig.cwd });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim(), mode).toBe(expected);
      expect(existsSync(join(rig.cwd, `in-${mode}`)), mode).toBe(mode !== "plan");
      expect(existsSync(join(elsewhere, `out-${mode}`)), mode).toBe(mode === "full");
    }
  });

  it("--permission-mode is --mode, read-only is plan, and config mode counts when no flag says", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ code: writesCell("cfg") }, echoLastCell, { code: writesCell("flag") }, echoLastCell] },
      { config: { mode: "plan" } },
    );
    const env: NodeJS.ProcessEnv = { ...rig.env };
    delete env.RELM_MODE;
    const byConfig = await runRelm(["run", "write"], { env, cwd: rig.cwd });
    expect(byConfig.stdout.trim(), byConfig.stderr).toBe(`inside:${RO} outside:${RO}`);
    const byFlag = await runRelm(["run", "--permission-mode", "read-only", "write"], { env, cwd: rig.cwd });
    expect(byFlag.stdout.trim(), byFlag.stderr).toBe(`inside:${RO} outside:${RO}`);
  });

  it("defaults to workspace where bubblewrap works, with no warning", async () => {
    const rig = await writesRig("default");
    const env = { ...rig.env };
    delete env.RELM_MODE; // no mode anywhere: the default decides
    const result = await runRelm(["run", "write"], { env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(`inside:yes outside:${RO}`);
    expect(result.stderr).not.toMatch(/no sandbox/);
    // The trial's answer is kept for the next start.
    const cached = JSON.parse(readFileSync(join(rig.home, "cache", "sandbox-probe.json"), "utf8"));
    expect(cached.probe.ok).toBe(true);
  });

  it("defaults to full with a one-line warning when bubblewrap cannot make namespaces", async () => {
    const rig = await writesRig("nouserns");
    const env: NodeJS.ProcessEnv = { ...rig.env, RELM_BWRAP: failingBwrap() };
    delete env.RELM_MODE;
    const result = await runRelm(["run", "write"], { env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("inside:yes outside:yes");
    const warnings = result.stderr.split("\n").filter((l) => /no sandbox/.test(l));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /⚠ no sandbox: bubblewrap 0\.8\.0 cannot make namespaces here \(bwrap: No permissions to creating new namespace.*\), so kernels run with your rights \(--mode full\); to sandbox them, enable unprivileged user namespaces/,
    );
    // Asking for a sandboxed mode there is refused, saying why, before anything starts.
    const asked = await runRelm(["run", "--mode", "plan", "write"], { env, cwd: rig.cwd });
    expect(asked.code).toBe(1);
    expect(asked.stderr).toMatch(
      /^relm: --mode plan needs the sandbox, which does not work here: bubblewrap 0\.8\.0 cannot make namespaces here .*; enable unprivileged user namespaces/m,
    );
    expect(rig.model.requests).toHaveLength(2); // only the first run's
  });

  it("/mode plan mid-session is refused where bubblewrap cannot make namespaces, saying why", async () => {
    const rig = await writesRig("refused");
    const env: NodeJS.ProcessEnv = { ...rig.env, RELM_BWRAP: failingBwrap() };
    delete env.RELM_MODE;
    const result = await runRelm([], { env, cwd: rig.cwd, input: "write\n/mode plan\n/exit\n" });
    expect(result.code, result.stderr).toBe(0);
    expect(`${result.stdout}${result.stderr}`).toMatch(
      /\/mode plan needs the sandbox, which does not work here: bubblewrap 0\.8\.0 cannot make namespaces here .*; enable unprivileged user namespaces/,
    );
    expect(result.stdout).not.toMatch(/⊡ mode: plan/);
  });

  it("defaults to full with a warning that says to install bubblewrap when it is not on PATH", async () => {
    const rig = await writesRig("nobwrap");
    const env: NodeJS.ProcessEnv = { ...rig.env, PATH: pathWithoutBwrap() };
    delete env.RELM_MODE;
    const result = await runRelm(["run", "write"], { env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("inside:yes outside:yes");
    expect(result.stderr).toMatch(
      /⚠ no sandbox: bubblewrap is not installed, so kernels run with your rights \(--mode full\); to sandbox them, install bubblewrap: apt-get install bubblewrap/,
    );
  });

  it("--sandbox is --mode workspace, and the two disagreeing is a usage error", async () => {
    const rig = await writesRig("synonym");
    const result = await runRelm(["run", "--sandbox", "write"], { env: rig.env, cwd: rig.cwd });
    expect(result.stdout.trim(), result.stderr).toBe(`inside:yes outside:${RO}`);
    const both = await runRelm(["run", "--sandbox", "--mode", "full", "write"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--sandbox is --mode workspace, and --mode says full: give one of them/);
    const bad = await runRelm(["run", "--mode", "yolo", "write"], { env: rig.env, cwd: rig.cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--mode must be plan \(read-only\), workspace or full, got "yolo"/);
  });
});

describe.skipIf(!linux)("switching and inheriting modes", () => {
  it("/mode plan mid-session restarts the kernel under plan and keeps its variables", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "x = 41\nimport threading\nlock = threading.Lock()\nprint('set')" },
        { text: "set" },
        { code: `${writesCell("switched")}\nprint('x', x + 1, 'lock' in dir())` },
        echoLastCell,
      ],
    });
    const input = "set the values\n/mode plan\nuse them\n/exit\n";
    const result = await runRelm(["--mode", "workspace"], { env: rig.env, cwd: rig.cwd, input });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/mode workspace/); // line mode's first line
    expect(result.stdout).toMatch(/⊡ mode: plan — read-only/);
    expect(result.stdout).toMatch(/kernel restarted under it; restored x/);
    expect(result.stdout).toMatch(/not restored: lock \(/);
    // The same kernel state, in a kernel that can no longer write the project.
    expect(result.stdout).toContain(`inside:${RO} outside:${RO}\nx 42 False`);
    // The model was told, with the next message, and which variable did not come back.
    const told = rig.bodies()[2] ?? "";
    expect(told).toMatch(/The user switched the permission mode to plan/);
    expect(told).toMatch(/Not restored: lock/);
    // Remembered: every later host of the session runs in plan.
    const [id] = readdirSync(join(rig.home, "sessions"));
    const flags = JSON.parse(readFileSync(join(rig.home, "sessions", id as string, "flags.json"), "utf8"));
    expect(flags.mode).toBe("plan");
    const journal = readFileSync(join(rig.home, "sessions", id as string, "journal.jsonl"), "utf8");
    const event = journal
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((e) => e.type === "mode");
    expect(event).toMatchObject({ mode: "plan", from: "workspace", restored: ["x"] });
  });

  it("a sub-agent inherits the mode and can only narrow it", async () => {
    const children = ["full", "plan", "same"];
    const root = children
      .map((c) => `print('${c}', rlm('CHILD ${c}: write'${c === "same" ? "" : `, mode='${c}'`}))`)
      .join("\n");
    const script = byTask({
      "ROOT: spawn": [{ code: root }, echoLastCell],
      ...Object.fromEntries(
        children.map((c) => [`CHILD ${c}: write`, [{ code: writesCell(`child-${c}`) }, echoLastCell]]),
      ),
    });
    const rig = await startRig("openai", { script });
    const result = await runRelm(["run", "--mode", "workspace", "ROOT: spawn"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    // Asking for full in a workspace session gets workspace; plan narrows; nothing asked inherits.
    expect(result.stdout).toContain(`full inside:yes outside:${RO}`);
    expect(result.stdout).toContain(`plan inside:${RO} outside:${RO}`);
    expect(result.stdout).toContain(`same inside:yes outside:${RO}`);
  });

  it("in a full session a sub-agent may still narrow to plan", async () => {
    const script = byTask({
      "ROOT: spawn": [
        {
          code: "print('plan', rlm('CHILD plan: write', mode='plan'))\nprint('same', rlm('CHILD same: write'))",
        },
        echoLastCell,
      ],
      "CHILD plan: write": [{ code: writesCell("full-plan") }, echoLastCell],
      "CHILD same: write": [{ code: writesCell("full-same") }, echoLastCell],
    });
    const rig = await startRig("openai", { script });
    const result = await runRelm(["run", "--mode", "full", "ROOT: spawn"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`plan inside:${RO} outside:${RO}`);
    expect(result.stdout).toContain("same inside:yes outside:yes");
  });

  it("/mode over ACP switches the editor's session: said in the thread, the next cell read-only", async () => {
    const rig = await startRig("openai", {
      script: [{ code: writesCell("acp-1") }, echoLastCell, { code: writesCell("acp-2") }, echoLastCell],
    });
    const editor = startEditor(rig, { ...rig.env, RELM_MODE: "workspace" });
    try {
      await initialize(editor);
      const { sessionId: id } = await editor.conn.agent.request("session/new", {
        cwd: rig.cwd,
        mcpServers: [],
      });
      const prompt = (text: string) =>
        editor.conn.agent.request("session/prompt", { sessionId: id, prompt: [{ type: "text", text }] });
      const said = () =>
        updatesOf(editor, id, "agent_message_chunk")
          .map((c) => (c.content as { text: string }).text)
          .join("");
      expect((await prompt("write")).stopReason, editor.stderr()).toBe("end_turn");
      expect(said()).toContain(`inside:yes outside:${RO}`);
      await prompt("/mode plan");
      expect(said()).toMatch(/⊡ mode: plan — read-only/);
      await prompt("write again");
      expect(said()).toContain(`inside:${RO} outside:${RO}`);
    } finally {
      await editor.close();
      await runRelm(["shutdown"], { env: rig.env });
    }
  });
});
