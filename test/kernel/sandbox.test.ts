// The sandbox with real bubblewrap and real kernels (spawned and forked from a sandboxed template).
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Kernel, startKernel, startKernelTemplate } from "../../src/kernel/index.js";
import { sandboxLauncher } from "../../src/kernel/launchers/sandbox.js";
import { netPolicyOf, openSandbox } from "../../src/kernel/sandbox/index.js";
import type { KernelSandbox, SandboxMode } from "../../src/kernel/sandbox/types.js";
import type { KernelTemplate } from "../../src/kernel/types.js";
import { until } from "../support/wait.js";
import { isAlive, tempDir, testPython } from "./helpers.js";

const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

async function server(): Promise<{ port: number; server: Server }> {
  const s = createServer((_req, res) => res.end("hello from the host"));
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  open.push({ close: () => new Promise<void>((r) => s.close(() => r())) });
  return { port: (s.address() as { port: number }).port, server: s };
}

interface Setup {
  /** Live output of the running cells, as it arrives. */
  output: string[];
  project: string;
  home: string;
  session: string;
  sandbox: KernelSandbox;
  kernel: Kernel;
}

async function setup(allowNet: string[] = [], mode: SandboxMode = "workspace"): Promise<Setup> {
  const project = await tempDir("relm-sandbox-project-");
  const home = await tempDir("relm-sandbox-home-");
  mkdirSync(path.join(home, "run"), { recursive: true });
  writeFileSync(path.join(home, "run", "other.sock"), "");
  writeFileSync(path.join(home, "config.json"), "{}");
  const session = path.join(home, "sessions", "S1");
  const python = await testPython();
  const sandbox = await openSandbox({
    settings: { mode, net: netPolicyOf(allowNet) },
    project,
    sessionDir: session,
    relmHome: home,
    env: process.env,
    python: python.path,
  });
  open.push(sandbox);
  const output: string[] = [];
  const kernel = await startKernel({
    cwd: project,
    python,
    outputDir: path.join(session, "outputs"),
    launcher: sandboxLauncher(sandbox),
    onOutput: (text) => output.push(text),
  });
  open.push({ close: () => kernel.shutdown() });
  return { output, project, home, session, sandbox, kernel };
}

const SLEEP_CELL = "import time\nprint('sleeping', flush=True)\ntime.sleep(60)";

/** Interrupts the sleeping cell once it has said so (no fixed wait) and returns its result. */
async function interrupted(kernel: Kernel, output: string[]) {
  output.length = 0;
  const run = kernel.execute(SLEEP_CELL);
  await until(() => (output.join("").includes("sleeping") ? true : undefined));
  kernel.interrupt();
  return run;
}

const fetchCell = (port: number) =>
  [
    "import urllib.request",
    "try:",
    `    print(urllib.request.urlopen('http://127.0.0.1:${port}/', timeout=5).read().decode())`,
    "except Exception as e:",
    "    print('unreachable', type(e).__name__)",
  ].join("\n");

describe.skipIf(!linux)("the sandbox (bubblewrap)", () => {
  it("keeps writes in the project, hides RELM_HOME and the host's processes, has no network", async () => {
    const { project, home, session, kernel } = await setup();
    const { port } = await server();
    // Outside the project: $HOME (read-only here) and a sibling of the project made on the host.
    const outside = path.join(os.homedir(), `.relm-sandbox-outside-${process.pid}`);
    const w = await kernel.execute(`open('${outside}', 'w')`);
    expect(w.status).toBe("error");
    expect(w.output).toMatch(/Read-only file system/);
    expect(existsSync(outside)).toBe(false);
    const t = await kernel.execute("!touch x && echo touched");
    expect(t.output).toBe("touched\n");
    expect(existsSync(path.join(project, "x"))).toBe(true);
    const out = await kernel.execute(
      `import os\nopen('${path.join(session, "outputs", "f.txt")}', 'w').write('ok')\nopen('/tmp/t', 'w').write('private')`,
    );
    expect(out.status).toBe("ok");
    expect(existsSync(path.join(session, "outputs", "f.txt"))).toBe(true);
    expect(existsSync("/tmp/t")).toBe(false); // its /tmp is its own
    const listing = await kernel.execute(
      `import os\nprint(os.path.exists('${path.join(home, "run")}'), os.path.exists('${path.join(home, "config.json")}'))`,
    );
    expect(listing.output).toBe("False False\n");
    const env = await kernel.execute(
      `try:\n    print(open('/proc/${process.pid}/environ').read()[:20])\nexcept Exception as e:\n    print(type(e).__name__)`,
    );
    expect(env.output).toBe("FileNotFoundError\n");
    expect((await kernel.execute(fetchCell(port))).output).toMatch(/^unreachable/);
  });

  it("is interrupted and killed by its host pid (translated from its own pid namespace)", async () => {
    const { kernel, output } = await setup();
    const inner = Number((await kernel.execute("import os\nos.getpid()")).output);
    expect(inner).toBeLessThan(20); // its own namespace
    expect(isAlive(kernel.pid)).toBe(true);
    const r = await interrupted(kernel, output);
    expect(r.error?.name).toBe("KeyboardInterrupt");
    expect((await kernel.execute("1 + 1")).output).toBe("2\n");
    const pid = kernel.pid;
    await kernel.shutdown();
    await until(() => (isAlive(pid) ? undefined : true));
  });

  it("reaches only what --allow-net lists, through the host's proxy", async () => {
    const { port } = await server();
    const { port: other } = await server();
    const { kernel } = await setup([`127.0.0.1:${port}`]);
    expect((await kernel.execute(fetchCell(port))).output).toBe("hello from the host\n");
    expect((await kernel.execute(fetchCell(other))).output).toMatch(/^unreachable HTTPError/);
    const curl = await kernel.execute(`!curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:${other}/`);
    expect(curl.output).toMatch(/403/);
    // A client that ignores the proxy has no route out at all.
    const raw = await kernel.execute(
      `import socket\ntry:\n    socket.create_connection(('127.0.0.1', ${port}), timeout=3)\n    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)`,
    );
    expect(raw.output).toMatch(/^refused/);
  });

  it("strict mode hides $HOME", async () => {
    const marker = path.join(os.homedir(), `.relm-sandbox-test-${process.pid}`);
    writeFileSync(marker, "mine");
    open.push({ close: async () => rmSync(marker, { force: true }) });
    const { kernel } = await setup([], "strict");
    const r = await kernel.execute(
      `import os\nprint(os.path.exists('${marker}'), os.path.exists('${os.homedir()}'))`,
    );
    expect(r.output).toBe("False True\n");
  });

  it("forks kernels from a template inside the same sandbox", async () => {
    const { project, sandbox, session } = await setup();
    const python = await testPython();
    const launcher = sandboxLauncher(sandbox);
    const template: KernelTemplate = await startKernelTemplate({ python, wrapper: launcher });
    open.push(template);
    const events: { type: string; forkedFrom?: number; fallback?: string }[] = [];
    const output: string[] = [];
    const child = await startKernel({
      onOutput: (text) => output.push(text),
      cwd: project,
      python,
      template,
      launcher,
      outputDir: path.join(session, "children", "C1", "outputs"),
      onLifecycle: (e) => events.push(e),
    });
    open.push({ close: () => child.shutdown() });
    expect(events[0]).toMatchObject({ type: "started", forkedFrom: template.pid });
    expect(events[0]?.fallback).toBeUndefined();
    const w = await child.execute("open('/usr/x', 'w')");
    expect(w.output).toMatch(/Read-only file system/);
    expect((await child.execute("!touch from-child && echo ok")).output).toBe("ok\n");
    expect(existsSync(path.join(project, "from-child"))).toBe(true);
    const env = await child.execute(
      `import os\nprint(os.path.exists('/proc/${process.pid}/environ'), os.getpid() < 50)`,
    );
    expect(env.output).toBe("False True\n");
    expect((await interrupted(child, output)).error?.name).toBe("KeyboardInterrupt");
    // A plain kernel is not forked from the sandboxed template.
    const plainEvents: { type: string; fallback?: string }[] = [];
    const plain = await startKernel({
      cwd: project,
      python,
      template,
      onLifecycle: (e) => plainEvents.push(e),
    });
    open.push({ close: () => plain.shutdown() });
    expect(plainEvents[0]?.fallback).toMatch(/another sandbox/);
  });
});

describe.skipIf(!linux)("the allow-list proxy's socket directory ($TMPDIR/relm-UID)", () => {
  // Shared with other users when TMPDIR is /tmp: one who made it (or a link of that name) first could
  // swap the proxy's socket and see the kernels' traffic.
  it("is made private when it is ours, and refused when it is a symlink", async () => {
    const base = mkdtempSync(path.join(os.tmpdir(), "relm-tmpdir-"));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = base;
    try {
      const dir = path.join(base, `relm-${process.getuid?.()}`);
      const python = await testPython();
      const request = {
        settings: { mode: "workspace" as const, net: netPolicyOf(["127.0.0.1:1"]) },
        project: await tempDir("relm-sandbox-project-"),
        env: process.env,
        python: python.path,
      };
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      await (await openSandbox(request)).close();
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      rmSync(dir, { recursive: true });
      symlinkSync(mkdtempSync(path.join(base, "elsewhere-")), dir);
      await expect(openSandbox(request)).rejects.toThrow(/is not a directory/);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(base, { recursive: true, force: true });
    }
  });
});
