// Trust on first use of the project files that steer the host (docs/security.md, "Project files"):
// `.relm/hooks.json`, `.mcp.json` servers and specs with `kernel:` are used only once the user approved
// them as they are now (`relm trust`); headless, an untrusted file is left unused with one stderr line;
// an edited file asks again. A trusted project hook of a sandboxed session runs in its sandbox. Real
// `relm` processes against the scripted model over HTTP.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { fixtureWithPidFile } from "../../support/mcp.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");
// Somewhere on the host's disk outside the project (not under /tmp, which is the sandbox's own).
const elsewhere = linux ? mkdtempSync(join(homedir(), ".relm-hook-trust-e2e-")) : "";
afterAll(() => {
  if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
});

function writeHooks(rig: Rig, command: string, event = "SessionStart"): void {
  mkdirSync(join(rig.cwd, ".relm"), { recursive: true });
  writeFileSync(
    join(rig.cwd, ".relm", "hooks.json"),
    JSON.stringify({ hooks: { [event]: [{ hooks: [{ type: "command", command }] }] } }),
  );
}

const CALL_CELL = [
  "import os",
  "try:",
  "    print('server:', mcp.probe.write(path=os.path.abspath('by-server.txt')))",
  "except mcp.ServerError as e:",
  "    print('refused')",
].join("\n");

describe("trust on first use of project files", () => {
  it("an untrusted .relm/hooks.json and .mcp.json are unused headless; `relm trust` approves them; an edit asks again", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "TASK: call": [{ code: CALL_CELL }, echoLastCell] }),
    });
    mkdirSync(join(rig.cwd, ".git"));
    const pidFile = join(rig.cwd, "server.pid");
    writeFileSync(
      join(rig.cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { probe: fixtureWithPidFile("probe", pidFile) } }),
    );
    writeHooks(rig, "echo first >> hook.log");
    const hookLog = join(rig.cwd, "hook.log");
    const run = () => runRelm(["run", "TASK: call"], { env: rig.env, cwd: rig.cwd });
    const relm = (...args: string[]) => runRelm(args, { env: rig.env, cwd: rig.cwd });

    const untrusted = await run();
    expect(untrusted.code, untrusted.stderr).toBe(0);
    const notes = untrusted.stderr.split("\n").filter((l) => l.includes("relm trust"));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(
      "project files not trusted, so not used: .relm/hooks.json, .mcp.json (probe); review what they run and approve them with `relm trust`",
    );
    expect(untrusted.stdout).toContain("refused");
    expect(existsSync(hookLog)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);

    // Without a terminal `relm trust` lists and does not approve; --yes approves what it listed.
    const listed = await relm("trust");
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(
      ".relm/hooks.json: hooks — not approved\n      SessionStart: echo first >> hook.log",
    );
    expect(listed.stdout).toContain('.mcp.json: MCP server "probe" — not approved\n      /bin/sh -c ');
    expect(listed.stdout).toContain("run `relm trust --yes` to approve them as listed");
    const approved = await relm("trust", "--yes");
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain("Trusted 2 item(s)");
    const trustFile = join(rig.home, "trust.json");
    expect((await import("node:fs")).statSync(trustFile).mode & 0o777).toBe(0o600);

    const trusted = await run();
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stderr).not.toContain("relm trust");
    expect(trusted.stdout).toContain("server: wrote");
    expect(readFileSync(hookLog, "utf8")).toBe("first\n");
    expect(existsSync(pidFile)).toBe(true);

    // An edit of the hooks file is a new file to trust: unused again, and said so.
    writeHooks(rig, "echo second >> hook.log");
    const edited = await run();
    expect(edited.stderr).toContain(
      "project files not trusted, so not used: .relm/hooks.json (changed); review what they run and approve them with `relm trust`",
    );
    expect(readFileSync(hookLog, "utf8")).toBe("first\n");
    expect((await relm("trust", "--list")).stdout).toContain(".relm/hooks.json: hooks — changed");

    const revoked = await relm("trust", "--revoke");
    expect(revoked.stdout).toContain("Revoked 2 approval(s)");
    expect((await relm("trust", "--list")).stdout).toContain('.mcp.json: MCP server "probe" — not approved');
  }, 180_000);

  it("a spec's kernel: is used only once trusted", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: delegate": [
          {
            code: "try:\n    print(rlm('CHILD: where', spec='remote'))\nexcept Exception as e:\n    print(type(e).__name__, e)",
          },
          echoLastCell,
        ],
        "CHILD: where": [{ text: "ran in the spec's kernel" }],
      }),
    });
    mkdirSync(join(rig.cwd, ".relm", "agents"), { recursive: true });
    writeFileSync(join(rig.cwd, ".relm", "agents", "remote.yaml"), "description: elsewhere\nkernel: local\n");
    const run = () => runRelm(["run", "TASK: delegate"], { env: rig.env, cwd: rig.cwd });
    const refused = await run();
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stdout).toContain(
      'agent spec "remote" (.relm/agents/remote.yaml) chooses kernel local, which the user has not approved',
    );
    expect(refused.stderr).toContain("not used: .relm/agents/remote.yaml");
    const trust = await runRelm(["trust", "--yes"], { env: rig.env, cwd: rig.cwd });
    expect(trust.stdout).toContain('sub-agent "remote" runs its kernel on local');
    const allowed = await run();
    expect(allowed.stdout).toContain("ran in the spec's kernel");
  }, 120_000);

  it("relm trust --revoke with --list or --yes is refused: --list only lists, --yes approves", async () => {
    // `relm trust --list --revoke` revoked every approval of the project: --revoke won silently.
    const rig = await startRig("openai", { script: [] });
    writeHooks(rig, "true");
    const trust = (...flags: string[]) => runRelm(["trust", ...flags], { env: rig.env, cwd: rig.cwd });
    expect((await trust("--yes")).code).toBe(0);
    for (const flags of [
      ["--list", "--revoke"],
      ["--yes", "--revoke"],
    ]) {
      const refused = await trust(...flags);
      expect(refused.code, refused.stdout).toBe(2);
      expect(refused.stderr).toMatch(/^relm: .*--revoke/);
    }
    expect((await trust("--list")).stdout).toContain("All of them are trusted as they are now.");
  });

  it.skipIf(!linux)(
    "a trusted project hook of a sandboxed session runs in the sandbox: it writes the project, nothing outside",
    async () => {
      const rig = await startRig("openai", {
        script: byTask({ "TASK: cell": [{ code: "print('ran')" }, echoLastCell] }),
      });
      mkdirSync(join(rig.cwd, ".git"));
      const outside = join(elsewhere, "from-project-hook.txt");
      const userOutside = join(elsewhere, "from-user-hook.txt");
      writeHooks(rig, `touch '${outside}'; touch inside-hook.txt`, "PreToolUse");
      expect((await runRelm(["trust", "--yes"], { env: rig.env, cwd: rig.cwd })).code).toBe(0);
      // The user's own hook (config.json) is trusted: it runs on the host, as the user.
      const config = join(rig.home, "config.json");
      const cfg = JSON.parse(readFileSync(config, "utf8"));
      cfg.hooks = { PreToolUse: [{ hooks: [{ type: "command", command: `touch '${userOutside}'` }] }] };
      writeFileSync(config, JSON.stringify(cfg));
      const run = await runRelm(["run", "--sandbox", "TASK: cell"], { env: rig.env, cwd: rig.cwd });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain("ran");
      expect(existsSync(join(rig.cwd, "inside-hook.txt"))).toBe(true);
      expect(existsSync(outside)).toBe(false);
      expect(existsSync(userOutside)).toBe(true);
    },
    120_000,
  );
});
