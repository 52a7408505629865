// The release path a new user takes: the tarball `npm pack` makes, installed globally into a fresh
// prefix (never the machine's own), runs from outside the repository with nothing configured.
import { execFile, spawn } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, pythonsOf, RELM_BIN, ROOT, runRelm, tempDir } from "../../support/cli.js";
import { approveProjectServers, EVERYTHING } from "../../support/mcp.js";
import { startPty } from "../../support/pty.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const exec = promisify(execFile);
const startRig = useRigs();
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/**
 * npm's environment without what `npm test` exports to its scripts (this package's fields, the
 * lifecycle, its prefix), so the nested npm behaves as it would in a user's shell.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_(package|lifecycle)_|^npm_config_(prefix|global|local_prefix)$|^INIT_CWD$/i.test(k)) continue;
    env[k] = v;
  }
  return env;
}

function npm(args: string[], cwd: string, timeoutMs: number) {
  return exec("npm", args, { cwd, env: npmEnv(), timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 });
}

/** Why the registry cannot be used, or null when `npm ping` answers. */
async function registryProblem(): Promise<string | null> {
  try {
    await npm(["ping", "--fetch-retries=1", "--fetch-timeout=20000"], ROOT, 60_000);
    return null;
  } catch (error) {
    const e = error as { stderr?: string; message: string; killed?: boolean };
    if (e.killed) return "no answer within 60 s";
    const lines = (e.stderr ?? "").split("\n");
    const reason =
      lines.find((l) => l.startsWith("npm error FetchError")) ??
      lines.find((l) => l.startsWith("npm error code"));
    return reason?.replace(/^npm error /, "") ?? e.message.split("\n")[0] ?? "failed";
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

/** Packs the repository as it is built (no rebuild) into `dest`; the tarball's path and file list. */
async function pack(dest: string): Promise<{ tarball: string; files: string[] }> {
  // --ignore-scripts: `npm pack` runs `prepare` (the build), which would rewrite dist/ under tests
  // that are running it; the tests build first, so the tarball holds that build.
  const { stdout } = await npm(
    ["pack", "--ignore-scripts", "--json", "--pack-destination", dest],
    ROOT,
    60_000,
  );
  const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  if (!info) throw new Error(`npm pack printed no package: ${stdout}`);
  return { tarball: join(dest, info.filename), files: info.files.map((f) => f.path) };
}

/** Starts an installed stdio server, sends one JSON-RPC request, returns its first answer line. */
function firstAnswer(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  request: object,
): Promise<{ result?: Record<string, unknown>; error?: unknown }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const timer = setTimeout(() => child.kill(), 30_000);
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) {
        clearTimeout(timer);
        child.kill();
        resolve(JSON.parse(line));
      }
    });
    child.on("exit", () => {
      clearTimeout(timer);
      reject(new Error(`relm ${args.join(" ")} gave no answer: ${out}${err}`));
    });
    child.stdin.write(`${JSON.stringify(request)}\n`);
  });
}

describe("the npm tarball", () => {
  it("is lean: the build and the Python package, no sources, tests, benches or docs", async () => {
    expect(existsSync(RELM_BIN), "dist/ is missing: run `npm run build` first").toBe(true);
    const dir = tempDir("relm-pack-");
    cleanups.push(dir.cleanup);
    const { files } = await pack(dir.path);
    for (const needed of [
      "package.json",
      "README.md",
      "dist/cli/relm.cjs",
      "dist/cli/main.js",
      "dist/cli/app.js",
      "python/relm/__init__.py",
      "python/relm/runner.py",
    ]) {
      expect(files).toContain(needed);
    }
    const unwanted = files.filter(
      (f) =>
        /^(src|test|bench|docs|scripts|\.ci|node_modules|python\/tests)\//.test(f) ||
        /\.(ts|map|png|jpe?g|gif|tgz|pyc)$/.test(f) ||
        f.includes("__pycache__"),
    );
    expect(unwanted).toEqual([]);
    expect(files.every((f) => f === "package.json" || f === "README.md" || /^(dist|python)\//.test(f))).toBe(
      true,
    );
  });

  it("installs globally into a fresh prefix and runs relm demo outside the repository", async (ctx) => {
    expect(existsSync(RELM_BIN), "dist/ is missing: run `npm run build` first").toBe(true);
    const problem = await registryProblem();
    if (problem) {
      const note = `npm registry unreachable (npm ping: ${problem}); the tarball's runtime dependencies cannot be installed`;
      console.warn(`SKIPPED: ${note}`);
      ctx.skip(note);
    }
    const dir = tempDir("relm-install-");
    cleanups.push(dir.cleanup);
    const prefix = join(dir.path, "prefix");
    const { tarball } = await pack(dir.path);

    await npm(
      ["install", "--global", "--prefix", prefix, tarball, "--no-audit", "--no-fund", "--loglevel=error"],
      dir.path,
      240_000,
    );
    const bin = join(prefix, "bin", "relm");
    const installed = join(prefix, "lib", "node_modules", "relm");
    expect(realpathSync(bin)).toBe(realpathSync(join(installed, "dist", "cli", "relm.cjs")));
    expect(statSync(bin).mode & 0o111).not.toBe(0);

    // Installed as root with a strict umask or not, every file must be readable by whoever runs relm.
    const unreadable = filesUnder(installed).filter((f) => {
      try {
        accessSync(f, constants.R_OK);
        return (statSync(f).mode & 0o444) !== 0o444;
      } catch {
        return true;
      }
    });
    expect(unreadable).toEqual([]);
    expect(existsSync(join(installed, "src"))).toBe(false);
    expect(existsSync(join(installed, "test"))).toBe(false);

    // A user's shell: node on PATH for the shebang, nothing of relm configured, a home of its own.
    const home = join(dir.path, "home");
    const cwd = join(dir.path, "work");
    for (const d of [home, cwd]) mkdirSync(d);
    const env = cleanEnv({
      RELM_HOME: home,
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
    });

    const version = await runRelm(["--version"], { bin, env, cwd });
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(VERSION);

    const demo = await runRelm(["demo"], { bin, env, cwd, timeoutMs: 120_000 });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/\/api\/orders has the most errors: \d+/);
    expect(demo.stdout).toMatch(/measured by three sub-agents: \/api\/orders \d+ ms over \d+ requests/);
    expect(demo.stdout).toContain("dry run: nothing was written");
    expect(demo.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
    await until(() => (pythonsOf(home).length === 0 ? true : undefined));

    // The demo's session exports from the installed copy, html included (its markdown chunk shipped).
    const id = readdirSync(join(home, "sessions"))[0] ?? "";
    const html = await runRelm(["export", id, "--format", "html"], { bin, env, cwd });
    expect(html.code, html.stderr).toBe(0);
    expect(html.stdout).toContain('<div class="markdown">');

    // Kernels import the installed copy's Python package, not the repository's.
    const rig = await startRig("openai", {
      script: [
        { code: "import relm\nprint(relm.__file__)" },
        (c) => ({ text: `relm from ${c.lastToolResult?.trim()}` }),
      ],
    });
    const run = await runRelm(["run", "where is relm"], {
      bin,
      env: { ...rig.env, PATH: env.PATH },
      cwd: rig.cwd,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(
      `relm from ${join(realpathSync(installed), "python", "relm", "__init__.py")}`,
    );

    // The terminal UI is bundled into the installed copy (its libraries are not installed beside it).
    expect(existsSync(join(installed, "node_modules", "@mariozechner"))).toBe(false);
    const ui = startPty({ command: [bin], env: { ...rig.env, PATH: env.PATH }, cwd: rig.cwd });
    try {
      await ui.waitFor("new session");
      await ui.press("ctrl-d");
      expect((await ui.waitForExit()).exitCode).toBe(0);
    } finally {
      await ui.close();
    }
    expect(readFileSync(join(installed, "dist", "THIRD_PARTY_LICENSES.md"), "utf8")).toContain(
      "@mariozechner/pi-tui",
    );

    // The MCP and ACP SDKs are bundled as well: both stdio servers answer initialize from the installed copy.
    expect(existsSync(join(installed, "node_modules", "@modelcontextprotocol"))).toBe(false);
    const mcp = await firstAnswer(
      bin,
      ["mcp", "serve"],
      { ...rig.env, PATH: env.PATH },
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
    );
    expect(mcp.result?.serverInfo).toMatchObject({ name: "relm", version: VERSION });
    const acp = await firstAnswer(
      bin,
      ["acp"],
      { ...rig.env, PATH: env.PATH },
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: 1, clientCapabilities: {} },
      },
    );
    expect(acp.result?.agentInfo).toMatchObject({ name: "relm", version: VERSION });

    // The MCP client side is bundled too: a session of the installed copy calls a stdio server's tool.
    const withMcp = await startRig("openai", {
      script: [
        { code: "print(mcp.everything.echo(message='from the installed copy'))" },
        (c) => ({ text: c.lastToolResult?.trim() ?? "" }),
      ],
    });
    writeFileSync(
      join(withMcp.cwd, ".mcp.json"),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
    );
    // A project's server starts only once approved (docs/mcp.md, "Trust").
    approveProjectServers(withMcp.cwd, withMcp.home);
    const called = await runRelm(["run", "call an MCP tool"], {
      bin,
      env: { ...withMcp.env, PATH: env.PATH },
      cwd: withMcp.cwd,
    });
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout.trim()).toBe("Echo: from the installed copy");
  }, 400_000);
});
