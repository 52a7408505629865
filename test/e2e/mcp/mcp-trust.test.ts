// Project MCP servers start only once the user approved their exact entry, and a sandboxed session's
// stdio servers run in its sandbox (docs/mcp.md, "Trust"). Real `relm run --sandbox` sessions (real
// bubblewrap, real kernels, the scripted model over HTTP) against test/support/mcp-fixture.mjs, whose
// `write(path)` tool says whether the server could write a file; `relm mcp approve` as the user types it.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { FIXTURE, fixtureStdio } from "../../support/mcp.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");
// Somewhere on the host's disk outside the project (not under /tmp, which is the sandbox's own).
const elsewhere = linux ? mkdtempSync(join(homedir(), ".relm-mcp-trust-e2e-")) : "";
afterAll(() => {
  if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
});

/** What a sandboxed cell writes into the project's .mcp.json: a server that logs each start. */
function plantedServer(log: string) {
  return {
    command: "/bin/sh",
    args: ["-c", `echo ${log} >> started.log; exec '${process.execPath}' '${FIXTURE}' probe`],
  };
}

/** A cell that writes the server into .mcp.json (all of it, or with the log word changed). */
function plantCell(log: string): string {
  const mcpJson = JSON.stringify({ mcpServers: { probe: plantedServer(log) } });
  return `open('.mcp.json', 'w').write(${JSON.stringify(mcpJson)})\nprint('planted')`;
}

/** A cell that asks the server to write inside the project and outside it (OUTSIDE). */
const CALL_CELL = [
  "import os",
  "try:",
  "    print('inside:', mcp.probe.write(path=os.path.abspath('inside.txt')))",
  "    print('outside:', mcp.probe.write(path=OUTSIDE))",
  "except mcp.ServerError as e:",
  "    print('refused:', e)",
].join("\n");

function systemPrompts(rig: Rig): string[] {
  return rig.model.requests.map((r) => {
    const body = r.body as { messages?: { role: string; content: unknown }[] };
    return String(body.messages?.find((m) => m.role === "system")?.content ?? "");
  });
}

async function trustRig() {
  return startRig("openai", {
    script: byTask({
      "PLANT: write the server": [{ code: plantCell("first") }, echoLastCell],
      "CHANGE: edit the server": [{ code: plantCell("second") }, echoLastCell],
      "CALL: use the server": [{ code: CALL_CELL }, echoLastCell],
    }),
  });
}

describe.skipIf(!linux)("project MCP servers need the user's approval; --sandbox confines them", () => {
  it("a server a sandboxed cell plants never starts; approved it starts confined; changed it is refused again", async () => {
    const rig = await trustRig();
    const outside = join(elsewhere, "outside.txt");
    const log = join(rig.cwd, "started.log");
    const run = (task: string) =>
      runRelm(["run", "--sandbox", "--var", `OUTSIDE=${outside}`, task], { env: rig.env, cwd: rig.cwd });
    const relm = (...args: string[]) => runRelm(args, { env: rig.env, cwd: rig.cwd });
    mkdirSync(join(rig.cwd, ".git"));

    // The sandboxed cell can write .mcp.json (the project is writable)...
    const planted = await run("PLANT: write the server");
    expect(planted.code, planted.stderr).toBe(0);
    expect(existsSync(join(rig.cwd, ".mcp.json"))).toBe(true);

    // ...but the next session, sandboxed too, does not start what it names: the call is refused.
    const refused = await run("CALL: use the server");
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stdout).toContain(
      `refused: project MCP server 'probe' (.mcp.json) is not approved: it would run \`/bin/sh -c 'echo first >> started.log; exec`,
    );
    expect(refused.stdout).toContain("approve it with `relm mcp approve probe`");
    // The user sees it too, as the session's progress on stderr.
    expect(refused.stderr).toContain("⚠ project MCP server 'probe' (.mcp.json) is not approved");
    expect(existsSync(log)).toBe(false);
    // Its prompt names the server as not approved, never as something to call.
    expect(systemPrompts(rig).at(-1)).toContain(
      '- `mcp.probe`: not approved by the user (".mcp.json"): calls are refused until the user runs `relm mcp approve probe`',
    );

    // The user approves it, seeing what it runs.
    const approved = await relm("mcp", "approve", "probe");
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`Approved MCP server "probe" (.mcp.json) in `);
    expect(approved.stdout).toContain("runs:         /bin/sh -c 'echo first >> started.log; exec ");
    expect(approved.stdout).toContain("in a --sandbox session it runs inside the sandbox");
    expect((await relm("mcp", "list")).stdout).toContain("  approved\n");

    // Now it starts, inside the sandbox: it writes in the project, not elsewhere on the disk.
    const confined = await run("CALL: use the server");
    expect(confined.code, confined.stderr).toBe(0);
    expect(confined.stdout).toContain("inside: wrote\noutside: failed: EROFS");
    expect(readFileSync(log, "utf8")).toBe("first\n");
    expect(readFileSync(join(rig.cwd, "inside.txt"), "utf8")).toContain("written by the MCP server");
    expect(existsSync(outside)).toBe(false);

    // Once .mcp.json exists it is read-only inside the sandbox: a sandboxed cell cannot change it...
    const blocked = await run("CHANGE: edit the server");
    expect(blocked.code, blocked.stderr).toBe(0);
    expect(readFileSync(join(rig.cwd, ".mcp.json"), "utf8")).toContain("echo first");
    // ...but an unsandboxed one can: the changed entry is refused again until approved again.
    const changed = await runRelm(["run", "--var", `OUTSIDE=${outside}`, "CHANGE: edit the server"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(changed.code, changed.stderr).toBe(0);
    expect(readFileSync(join(rig.cwd, ".mcp.json"), "utf8")).toContain("echo second");
    const again = await run("CALL: use the server");
    expect(again.stdout).toContain(
      "refused: project MCP server 'probe' (.mcp.json) has changed since you approved it: it would now run `/bin/sh -c 'echo second >> started.log; exec",
    );
    expect(again.stdout).toContain("approve it again with `relm mcp approve probe`");
    expect(readFileSync(log, "utf8")).toBe("first\n");
    expect((await relm("mcp", "list")).stdout).toContain("CHANGED since you approved it");

    // Approved to run outside the sandbox, the same call writes outside: the sandbox was what stopped it.
    const out = await relm("mcp", "approve", "probe", "--outside-sandbox");
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("runs OUTSIDE the sandbox, even in a --sandbox session");
    const unconfined = await run("CALL: use the server");
    expect(unconfined.stdout).toContain("inside: wrote\noutside: wrote");
    expect(readFileSync(log, "utf8")).toBe("first\nsecond\n");
    rmSync(outside, { force: true });
  }, 240_000);

  it('the user\'s own stdio servers run in the sandbox too, unless their entry says "sandbox": false', async () => {
    const rig = await trustRig();
    const outside = join(elsewhere, "user-outside.txt");
    const run = () =>
      runRelm(["run", "--sandbox", "--var", `OUTSIDE=${outside}`, "CALL: use the server"], {
        env: rig.env,
        cwd: rig.cwd,
      });
    const userFile = (entry: Record<string, unknown>) =>
      writeFileSync(join(rig.home, "mcp.json"), JSON.stringify({ mcpServers: { probe: entry } }), {
        mode: 0o600,
      });

    userFile(fixtureStdio("probe"));
    const confined = await run();
    expect(confined.code, confined.stderr).toBe(0);
    expect(confined.stdout).toContain("inside: wrote\noutside: failed: EROFS");
    expect(existsSync(outside)).toBe(false);

    userFile({ ...fixtureStdio("probe"), sandbox: false });
    const unconfined = await run();
    expect(unconfined.code, unconfined.stderr).toBe(0);
    expect(unconfined.stdout).toContain("inside: wrote\noutside: wrote");
    rmSync(outside, { force: true });
  }, 120_000);
});

describe("approval without a sandbox", () => {
  it("a --mcp-config file inside the project needs approval too; one elsewhere does not", async () => {
    const rig = await trustRig();
    const relm = (...args: string[]) => runRelm(args, { env: rig.env, cwd: rig.cwd });
    mkdirSync(join(rig.cwd, ".git"));
    const inProject = join(rig.cwd, "ci-mcp.json");
    writeFileSync(inProject, JSON.stringify({ mcpServers: { probe: plantedServer("ci") } }));
    const refused = await relm(
      "run",
      "--mcp-config",
      "ci-mcp.json",
      "--var",
      "OUTSIDE=/nonexistent/x",
      "CALL: use the server",
    );
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stdout).toContain(
      "refused: MCP server 'probe' (ci-mcp.json, a --mcp-config file inside the project) is not approved",
    );
    expect(refused.stdout).toContain("approve it with `relm mcp approve probe --mcp-config ci-mcp.json`");
    expect(existsSync(join(rig.cwd, "started.log"))).toBe(false);

    const approved = await relm("mcp", "approve", "probe", "--mcp-config", "ci-mcp.json");
    expect(approved.code, approved.stderr).toBe(0);
    const ran = await relm(
      "run",
      "--mcp-config",
      "ci-mcp.json",
      "--var",
      "OUTSIDE=/nonexistent/x",
      "CALL: use the server",
    );
    expect(ran.stdout).toContain("inside: wrote");

    // Revoked, it is refused again, and the next prompt does not list the tools its last run cached.
    expect((await relm("mcp", "revoke", "probe")).code).toBe(0);
    const revoked = await relm(
      "run",
      "--mcp-config",
      "ci-mcp.json",
      "--var",
      "OUTSIDE=/nonexistent/x",
      "CALL: use the server",
    );
    expect(revoked.stdout).toContain("is not approved");
    const prompt = systemPrompts(rig).at(-1) ?? "";
    expect(prompt).toContain('- `mcp.probe`: not approved by the user ("ci-mcp.json")');
    expect(prompt).not.toContain("Writes a file");

    // The same file outside the project is the user's own: trusted as given.
    const mine = join(rig.home, "..", `${rig.home.split("/").pop()}-mine.json`);
    writeFileSync(mine, JSON.stringify({ mcpServers: { other: plantedServer("mine") } }));
    const list = await relm("mcp", "list", "--json", "--mcp-config", mine, "--mcp-config", "ci-mcp.json");
    rmSync(mine, { force: true });
    const trust = Object.fromEntries(
      list.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { name: string; trust: string })
        .map((s) => [s.name, s.trust]),
    );
    expect(trust).toEqual({ other: "trusted", probe: "not approved" });
  }, 120_000);
});
