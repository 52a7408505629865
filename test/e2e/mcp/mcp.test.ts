// MCP servers from npm (server-filesystem, server-everything) configured in a project's .mcp.json,
// called from cells of real `relm run` sessions driven by the scripted model, over stdio and over
// Streamable HTTP.

import { spawn } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isAlive } from "../../kernel/helpers.js";
import { RELM_BIN, ROOT, runRelm, tempDir } from "../../support/cli.js";
import { allText } from "../../support/journal.js";
import {
  approveProjectServers,
  everythingWithPidFile,
  filesystemStdio,
  type HttpServer,
  startEverythingHttp,
} from "../../support/mcp.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();
const SECRET = "mcp-e2e-secret-6c1f0aa8d2";

function journals(home: string): string[] {
  return allText(join(home, "sessions")).split("\n");
}

function systemPrompts(rig: Rig): string[] {
  return rig.model.requests.map((r) => {
    const body = r.body as { messages?: { role: string; content: unknown }[] };
    return String(body.messages?.find((m) => m.role === "system")?.content ?? "");
  });
}

/** A project with the two servers in .mcp.json; `everything` writes its pid to `pidFile` when it starts. */
function configure(rig: Rig, extra: Record<string, unknown> = {}) {
  const data = join(rig.cwd, "data");
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, "a.txt"), "alpha\n");
  const pidFile = join(rig.cwd, "everything.pid");
  writeFileSync(
    join(rig.cwd, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        filesystem: filesystemStdio(data),
        everything: everythingWithPidFile(pidFile, { EVERYTHING_SECRET: SECRET }),
        ...extra,
      },
    }),
  );
  approveProjectServers(rig.cwd, rig.home);
  return { data, pidFile };
}

describe("MCP over stdio in a session", () => {
  it("a cell calls tools as Python functions: objects back, help() shows the schema, errors raise mcp.ToolError", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: use tools": [
          {
            code:
              "r = mcp.filesystem.list_directory(path=DATA)\nprint(type(r).__name__, r)\n" +
              "help(mcp.everything.echo)\n" +
              "try:\n    mcp.everything.echo()\nexcept mcp.ToolError as e:\n    print('ToolError:', e)",
          },
          echoLastCell,
        ],
      }),
    });
    const { data, pidFile } = configure(rig);
    const result = await runRelm(["run", "--var", `DATA=${data}`, "ROOT: use tools"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("dict {'content': '[FILE] a.txt'}");
    expect(result.stdout).toContain("echo(*, message: str)");
    expect(result.stdout).toContain("message (string, required): Message to echo");
    expect(result.stdout).toMatch(/ToolError: .*Invalid arguments for tool echo/);

    // The prompt lists both servers before any ever ran, the same in every request.
    const prompts = systemPrompts(rig);
    expect(new Set(prompts).size).toBe(1);
    expect(prompts[0]).toContain("# MCP servers");
    expect(prompts[0]).toContain(
      "- `mcp.filesystem` (stdio): tools not yet known, call mcp.filesystem.tools()",
    );
    expect(prompts[0]).not.toContain("inputSchema");

    // The servers stopped with the session.
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(pid)).toBe(false);

    // The next session's prompt lists the tools they showed (one-line descriptions, no schemas).
    const again = await runRelm(["run", "ROOT: use tools"], { env: rig.env, cwd: rig.cwd });
    expect(again.code, again.stderr).toBe(0);
    const next = systemPrompts(rig).at(-1) ?? "";
    expect(next).toContain("- `mcp.filesystem` (stdio), 14 tools:");
    expect(next).toMatch(/ {2}- list_allowed_directories: "Returns the list of directories/);
    expect(next).toContain("- `mcp.everything` (stdio), ");
    expect(next).toContain('  - get_env: "Returns all environment variables');
    expect(next).not.toContain('"properties"');
  });

  it("a session that never calls MCP starts no server", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "ROOT: no tools": [{ code: "print(6 * 7)" }, echoLastCell] }),
    });
    const { pidFile } = configure(rig);
    const result = await runRelm(["run", "ROOT: no tools"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("42");
    expect(existsSync(pidFile)).toBe(false);
    expect(journals(rig.home).some((l) => l.includes('"type":"mcp"'))).toBe(false);
  });

  it("a server the model's cell names starts while the cell is still being written", async () => {
    // The cell only mentions the server: the start comes from the streamed code, not from a call. The
    // cell then waits (up to 60 s) for the start to be journaled, so a slow machine cannot end the
    // session before the server is ready (the kernel's own start is journaled as "started" too, so the
    // line must be the server's); it never calls the server itself.
    const waitForStart = [
      "# later: mcp.everything.echo(message='hi')",
      "import glob, time",
      "end = time.time() + 60",
      'started = lambda line: \'"type":"mcp"\' in line and \'"started"\' in line',
      "while time.time() < end and not any(started(l) for p in glob.glob(HOME + '/sessions/**/*.jsonl', recursive=True) for l in open(p)):",
      "    time.sleep(0.05)",
      "print('not called yet')",
    ];
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: write about it": [
          () => ({ code: waitForStart.join("\n").replace("HOME", JSON.stringify(rig.home)) }),
          echoLastCell,
        ],
      }),
      chunkDelayMs: 20,
    });
    const { pidFile } = configure(rig);
    const result = await runRelm(["run", "ROOT: write about it"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("not called yet");
    expect(existsSync(pidFile)).toBe(true);
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
    expect(journals(rig.home).some((l) => l.includes('"type":"mcp"') && l.includes('"started"'))).toBe(true);
  });

  it("a child agent calls a tool through its parent's host: one server for the tree", async () => {
    const rig = await startRig("anthropic", {
      script: byTask({
        "ROOT: delegate": [
          {
            code: "mcp.everything.echo(message='root first')\nprint(rlm('CHILD: echo through the parent'))",
          },
          echoLastCell,
        ],
        "CHILD: echo through the parent": [{ code: "submit(mcp.everything.echo(message='from the child'))" }],
      }),
    });
    const { pidFile } = configure(rig);
    const result = await runRelm(["run", "ROOT: delegate"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("Echo: from the child");
    const started = journals(rig.home).filter((l) => l.includes('"type":"mcp"') && l.includes('"started"'));
    expect(started).toHaveLength(1);
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("a server that exits mid-call raises a clear exception and the session goes on", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: crash it": [
          {
            code:
              "import os, signal, threading\nmcp.everything.echo(message='up')\n" +
              "pid = int(open(PIDFILE).read())\n" +
              "threading.Timer(0.5, lambda: os.kill(pid, signal.SIGKILL)).start()\n" +
              "try:\n    mcp.everything.trigger_long_running_operation(duration=30, steps=30)\n" +
              "except mcp.ServerError as e:\n    print('caught:', e)",
          },
          { code: "print(mcp.everything.echo(message='again'))" },
          (ctx) => ({ text: `done: ${ctx.lastToolResult?.trim()}` }),
        ],
      }),
    });
    const { pidFile } = configure(rig);
    const result = await runRelm(["run", "--var", `PIDFILE=${pidFile}`, "ROOT: crash it"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("done: Echo: again");
    const cell = rig.model.requests.map((r) => r.rawBody).find((b) => b.includes("caught:")) ?? "";
    expect(cell).toContain(
      'caught: MCP server \\"everything\\" exited during the request (killed by SIGKILL)',
    );
    expect(cell).toContain("everything: starting as");
    expect(journals(rig.home).some((l) => l.includes('"type":"mcp"') && l.includes('"failed"'))).toBe(true);
  });

  it.each(["SIGINT", "SIGKILL"] as const)(
    "%s to relm while a server runs leaves no server behind",
    async (signal) => {
      const rig = await startRig("openai", {
        script: byTask({
          "ROOT: hold it": [
            {
              code: "mcp.everything.echo(message='up')\nprint('calling', flush=True)\nimport time\ntime.sleep(120)",
            },
            { text: "never" },
          ],
        }),
      });
      const { pidFile } = configure(rig);
      const child = spawn(process.execPath, [RELM_BIN, "run", "ROOT: hold it"], {
        env: rig.env,
        cwd: rig.cwd,
      });
      const pid = await until(() => {
        const started = journals(rig.home).some((l) => l.includes('"type":"mcp"') && l.includes('"started"'));
        return started && existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined;
      }, 60_000);
      expect(isAlive(pid)).toBe(true);
      const code = await new Promise<number | null>((resolve) => {
        child.on("close", resolve);
        child.kill(signal);
      });
      expect(code).toBe(signal === "SIGINT" ? 130 : null);
      // Stopped by the session's end, or (SIGKILL) by its stdin closing with the host.
      await until(() => (isAlive(pid) ? undefined : true), 10_000);
    },
  );

  it("a server's env secret is not visible in the kernel, the journal or the requests", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: look for secrets": [
          {
            code:
              "import os\nenv = mcp.everything.get_env()\n" +
              "print(env.get('EVERYTHING_SECRET'), os.environ.get('EVERYTHING_SECRET'))\n" +
              "print(any('mcp-e2e-secret' in v for v in os.environ.values()))",
          },
          echoLastCell,
        ],
      }),
    });
    configure(rig);
    const result = await runRelm(["run", "ROOT: look for secrets"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("[REDACTED] None\nFalse\n");
    expect(allText(join(rig.home, "sessions"))).not.toContain(SECRET);
    for (const body of rig.bodies()) expect(body).not.toContain(SECRET);
    expect(result.stderr).not.toContain(SECRET);
  });
});

describe("MCP over Streamable HTTP in a session", () => {
  const servers: HttpServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it("tools, help, errors and a child's call; the header secret stays with the server", async () => {
    const http = await startEverythingHttp("streamableHttp");
    servers.push(http);
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: over http": [
          {
            code:
              "print(mcp.web.echo(message='hello'))\n" +
              "print('message (string, required)' in mcp.web.echo.__doc__)\n" +
              "try:\n    mcp.web.echo(message=5)\nexcept mcp.ToolError as e:\n    print('ToolError')\n" +
              "print(rlm('CHILD: http echo'))",
          },
          echoLastCell,
        ],
        "CHILD: http echo": [{ code: "submit(mcp.web.get_sum(a=20, b=22))" }],
      }),
    });
    writeFileSync(
      join(rig.cwd, ".mcp.json"),
      JSON.stringify({
        mcpServers: { web: { type: "http", url: http.url, headers: { Authorization: `Bearer ${SECRET}` } } },
      }),
    );
    approveProjectServers(rig.cwd, rig.home);
    const result = await runRelm(["run", "ROOT: over http"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines.slice(0, 3)).toEqual(["Echo: hello", "True", "ToolError"]);
    expect(lines[3]).toContain("42");
    expect(systemPrompts(rig)[0]).toContain("- `mcp.web` (http): tools not yet known");
    expect(allText(join(rig.home, "sessions"))).not.toContain(SECRET);
    for (const body of rig.bodies()) expect(body).not.toContain(SECRET);
    const started = journals(rig.home).filter((l) => l.includes('"type":"mcp"') && l.includes('"started"'));
    expect(started).toHaveLength(1);
  });
});

describe("a session that never calls MCP never loads the SDK", () => {
  it("runs with the SDK's chunks deleted from a copy of the build; a call then fails cleanly", async () => {
    const copy = tempDir("relm-no-mcp-sdk-");
    try {
      cpSync(join(ROOT, "dist"), join(copy.path, "dist"), { recursive: true });
      copyFileSync(join(ROOT, "package.json"), join(copy.path, "package.json"));
      symlinkSync(join(ROOT, "python"), join(copy.path, "python"));
      const cli = join(copy.path, "dist/cli");
      const sdk = /^\/\/ (dist\/mcp\/sdk\.js|node_modules\/(@modelcontextprotocol|zod)\/)/m;
      const removed = readdirSync(cli).filter(
        (f) => f.endsWith(".js") && sdk.test(readFileSync(join(cli, f), "utf8")),
      );
      expect(removed.length).toBeGreaterThan(0);
      expect(removed).not.toContain("app.js");
      for (const f of removed) rmSync(join(cli, f));
      const bin = join(cli, "main.js");
      chmodSync(bin, 0o755);

      const rig = await startRig("openai", {
        script: byTask({
          "ROOT: no tools": [{ code: "print(len(mcp.servers()))" }, echoLastCell],
          "ROOT: call one": [
            {
              code: "try:\n    mcp.everything.echo(message='x')\nexcept mcp.ServerError as e:\n    print(e)",
            },
            echoLastCell,
          ],
        }),
      });
      const { pidFile } = configure(rig);
      const quiet = await runRelm(["run", "ROOT: no tools"], { env: rig.env, cwd: rig.cwd, bin });
      expect(quiet.code, quiet.stderr).toBe(0);
      expect(quiet.stdout.trim()).toBe("2");
      const call = await runRelm(["run", "ROOT: call one"], { env: rig.env, cwd: rig.cwd, bin });
      expect(call.code, call.stderr).toBe(0);
      expect(call.stdout).toContain(
        'MCP server "everything" could not start: relm could not load the MCP SDK',
      );
      // The server was spawned before the SDK was found missing, and stopped again.
      if (existsSync(pidFile))
        await until(() => (isAlive(Number(readFileSync(pidFile, "utf8"))) ? undefined : true));
    } finally {
      copy.cleanup();
    }
  });
});
