// The MCP and ACP SDKs (and zod) are loaded only by `relm mcp serve` and `relm acp`: every other
// command runs in a copy of the build from which their chunks are deleted.
import { execFile } from "node:child_process";
import { copyFileSync, cpSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, ROOT, tempDir } from "../../support/cli.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

function runCopy(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { env, cwd, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end("");
  });
}

/** esbuild names each bundled file in a `// path` line. */
const PROTOCOL_MODULE =
  /^\/\/ (dist\/acp\/|dist\/mcp-server\/|node_modules\/(@agentclientprotocol|@modelcontextprotocol|zod)\/)/m;

describe("commands other than relm acp and relm mcp serve", () => {
  let copy: { path: string; cleanup: () => void };
  let bin: string;
  let removed: string[];

  beforeAll(() => {
    copy = tempDir("relm-no-protocols-");
    cpSync(join(ROOT, "dist"), join(copy.path, "dist"), { recursive: true });
    copyFileSync(join(ROOT, "package.json"), join(copy.path, "package.json"));
    symlinkSync(join(ROOT, "python"), join(copy.path, "python"));
    // No node_modules: the copy has only what the bundle holds, as an installed relm does.
    const cli = join(copy.path, "dist/cli");
    removed = readdirSync(cli).filter(
      (f) => f.endsWith(".js") && PROTOCOL_MODULE.test(readFileSync(join(cli, f), "utf8")),
    );
    for (const f of removed) rmSync(join(cli, f));
    rmSync(join(copy.path, "dist/acp"), { recursive: true, force: true });
    rmSync(join(copy.path, "dist/mcp-server"), { recursive: true, force: true });
    bin = join(cli, "main.js");
  });

  afterAll(() => copy.cleanup());

  it("run without the SDKs' chunks: --version, run, agents, help", async () => {
    expect(removed.length).toBeGreaterThan(0);
    expect(removed).not.toContain("app.js");
    const rig = await startRig("openai", { script: [{ code: "print(6 * 7)" }, { text: "42" }] });
    const run = (args: string[]) => runCopy(bin, args, rig.env, rig.cwd);
    const version = await run(["--version"]);
    expect(version.code, version.stderr).toBe(0);
    const task = await run(["run", "what is six times seven"]);
    expect(task.code, task.stderr).toBe(0);
    expect(task.stdout).toBe("42\n");
    const agents = await run(["agents"]);
    expect(agents.code, agents.stderr).toBe(0);
    const help = await run(["mcp", "serve", "--help"]);
    expect(help.code, help.stderr).toBe(0);
  });

  it("while relm acp and relm mcp serve do need them (so the check above could fail)", async () => {
    const rig = await startRig("openai", { script: [{ text: "unused" }] });
    for (const args of [["acp"], ["mcp", "serve"]]) {
      const result = await runCopy(bin, args, rig.env, rig.cwd);
      expect(result.code, `relm ${args.join(" ")}`).not.toBe(0);
      expect(result.stderr).toMatch(/Cannot find module|ERR_MODULE_NOT_FOUND/);
    }
  });
});
