// An approval of a project MCP server covers the project's files its command runs, not only its entry in
// .mcp.json (docs/mcp.md, "Trust"). A server approved to run outside the sandbox runs `sh start.sh`: the
// entry cannot change in a sandboxed session (.mcp.json is read-only there), but start.sh is a file of
// the project, which the sandboxed kernel can rewrite, and the host would then start the kernel's code
// outside the sandbox. Real bubblewrap, real kernels, the scripted model over HTTP.
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { FIXTURE } from "../../support/mcp.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");
// In the host's /tmp: the sandbox's /tmp is its own, so only a process outside could make it.
const marker = join(tmpdir(), `relm-mcp-files-${process.pid}`);
afterAll(() => rmSync(marker, { force: true }));

const CALL_CELL = [
  "try:",
  "    print('called:', mcp.probe.write(path='inside.txt'))",
  "except Exception as e:",
  "    print('refused:', e)",
].join("\n");

describe.skipIf(!linux)("a project MCP server's approval covers the project files it runs", () => {
  it("a script the server runs, rewritten by a sandboxed cell, makes the server 'changed' until approved again", async () => {
    const start = `exec '${process.execPath}' '${FIXTURE}' probe\n`;
    const rig = await startRig("openai", {
      script: byTask({
        "CALL: use it": [{ code: CALL_CELL }, echoLastCell],
        "REWRITE: the script": [
          {
            code: `open('start.sh', 'w').write(${JSON.stringify(`touch ${marker}\n${start}`)})\nprint('rewritten')`,
          },
          echoLastCell,
        ],
      }),
    });
    writeFileSync(join(rig.cwd, "start.sh"), start);
    writeFileSync(
      join(rig.cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { probe: { command: "/bin/sh", args: ["start.sh"] } } }),
    );
    const relm = (...args: string[]) => runRelm(args, { env: rig.env, cwd: rig.cwd });
    const approved = await relm("mcp", "approve", "probe", "--outside-sandbox");
    expect(approved.code, approved.stderr).toBe(0);
    const first = await relm("run", "--sandbox", "CALL: use it");
    expect(first.stdout, first.stderr).toContain("called: wrote");

    const rewritten = await relm("run", "--sandbox", "REWRITE: the script");
    expect(rewritten.stdout, rewritten.stderr).toContain("rewritten");
    const again = await relm("run", "--sandbox", "CALL: use it");
    expect(existsSync(marker), "the host started the kernel's start.sh outside the sandbox").toBe(false);
    expect(again.stdout).toContain(
      "refused: project MCP server 'probe' (.mcp.json) has changed since you approved it",
    );
    expect((await relm("mcp", "list")).stdout).toContain("CHANGED since you approved it");
  }, 240_000);
});
