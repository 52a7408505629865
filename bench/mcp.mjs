// MCP tool calls from a kernel (issue 11). Run after `npm run build`:
//   node bench/mcp.mjs [calls=300] [firsts=7]
// First call: a new `relm run` session's cell calls mcp.filesystem.list_allowed_directories() and times
// it; the time covers loading the SDK, starting @modelcontextprotocol/server-filesystem (installed in
// node_modules, started with node, no npx), the handshake, listing its tools and the call. Beside it,
// the server's own start and the SDK's import, each measured alone. Later calls: the same tool, timed in
// Python around each call, beside the same connection called directly from the host process (the
// server's own time plus the pipe): the difference is what the kernel -> host -> server path adds.
import { execFile, spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { Budget } from "../dist/agent/budget/budget.js";
import { handleMcpRequest } from "../dist/agent/kernel-api/mcp.js";
import { findPython, startKernel } from "../dist/kernel/index.js";
import { McpClients, parseServer } from "../dist/mcp/index.js";
import { startScriptedModel } from "../dist/scripted/index.js";
import { median, quantile, ROOT } from "./lib.mjs";

/** True when every chunk a file of the bundle imports is there (a copy taken mid-build is not). */
function complete(cli) {
  if (!existsSync(path.join(cli, "app.js"))) return false;
  for (const f of readdirSync(cli).filter((n) => n.endsWith(".js"))) {
    for (const m of readFileSync(path.join(cli, f), "utf8").matchAll(/"\.\/((?:chunk-[A-Z0-9]+|app)\.js)"/g))
      if (!existsSync(path.join(cli, m[1]))) return false;
  }
  return true;
}

// A copy of the build, so that a rebuild while this runs (chunk names change) cannot break a session.
const BUILD = mkdtempSync(path.join(os.tmpdir(), "relm-bench-mcp-build-"));
process.on("exit", () => rmSync(BUILD, { recursive: true, force: true }));
for (let attempt = 0; ; attempt++) {
  rmSync(path.join(BUILD, "dist"), { recursive: true, force: true });
  cpSync(path.join(ROOT, "dist"), path.join(BUILD, "dist"), { recursive: true });
  if (complete(path.join(BUILD, "dist/cli"))) break;
  if (attempt === 20) throw new Error("dist/ is incomplete: run npm run build");
  await new Promise((resolve) => setTimeout(resolve, 3000));
}
copyFileSync(path.join(ROOT, "package.json"), path.join(BUILD, "package.json"));
symlinkSync(path.join(ROOT, "python"), path.join(BUILD, "python"));

const FILESYSTEM = path.join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const CALLS = Number(process.argv[2] ?? 300);
const FIRSTS = Number(process.argv[3] ?? 7);

/**
 * The first call, as a person's session makes it: `relm run` (the bundled CLI) against a scripted model
 * whose one cell times the call in Python. Each run is a new session in a new project: its host has
 * never loaded the SDK nor started the server.
 */
async function firstCall(model, home) {
  const cwd = mkdtempSync(path.join(os.tmpdir(), "relm-bench-mcp-cwd-"));
  writeFileSync(
    path.join(cwd, ".mcp.json"),
    JSON.stringify({ mcpServers: { filesystem: { command: process.execPath, args: [FILESYSTEM, cwd] } } }),
  );
  const env = {
    ...process.env,
    RELM_HOME: home,
    RELM_BASE_URL: model.openaiBaseUrl,
    RELM_MODEL: "bench",
    NO_COLOR: "1",
  };
  const cli = path.join(BUILD, "dist/cli/relm.cjs");
  const { stdout } = await promisify(execFile)(process.execPath, [cli, "run", "first call"], {
    env,
    cwd,
    encoding: "utf8",
  });
  rmSync(cwd, { recursive: true, force: true });
  const ms = Number(stdout.trim());
  if (!Number.isFinite(ms)) throw new Error(`unexpected answer: ${stdout}`);
  return ms;
}

/** The server on its own: spawn to its answer to `initialize` (raw JSON-RPC, no SDK in this process). */
function serverBoot(dir) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [FILESYSTEM, dir], { stdio: ["pipe", "pipe", "ignore"] });
    child.stdout.setEncoding("utf8").once("data", () => {
      resolve(performance.now() - t);
      child.kill();
    });
    child.once("error", reject);
    const init = {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench", version: "0" },
    };
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: init })}\n`);
  });
}

/**
 * The bundled chunk the host imports at the first MCP call (with the SDK, zod and ajv), imported into a
 * fresh Node that has already loaded the CLI's own bundle, as a session host has.
 */
function sdkLoad() {
  const cli = path.join(BUILD, "dist/cli");
  const chunk = readdirSync(cli).find(
    (f) => f.startsWith("chunk-") && readFileSync(path.join(cli, f), "utf8").includes("LazyValidator"),
  );
  const code =
    `await import(${JSON.stringify(path.join(cli, "app.js"))});` +
    "const r = process.memoryUsage().rss, c = process.cpuUsage(), t = performance.now();" +
    `await import(${JSON.stringify(path.join(cli, chunk))});` +
    "const u = process.cpuUsage(c);" +
    "console.log(JSON.stringify({ ms: performance.now() - t, cpuMs: (u.user + u.system) / 1000, rssMb: (process.memoryUsage().rss - r) / 1048576 }))";
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8" });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout);
}

/** Later calls: timed in Python through the kernel, and directly on the host's connection. */
async function laterCalls() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "relm-bench-mcp-"));
  const server = parseServer(
    "filesystem",
    { command: process.execPath, args: [FILESYSTEM, dir] },
    "bench",
    "user",
    {},
    dir,
  );
  const clients = new McpClients(
    { servers: [server], files: [] },
    {
      env: process.env,
      cwd: dir,
      cacheDir: path.join(dir, "cache"),
      clientVersion: "bench",
      requestTimeoutMs: 60_000,
    },
  );
  const agent = {
    id: "bench",
    tree: { mcp: clients, options: { secrets: [] } },
    budget: new Budget({}),
    record() {},
  };
  const python = await findPython(process.env, path.join(os.tmpdir(), "relm-bench-python"));
  const kernel = await startKernel({
    cwd: dir,
    python,
    onHostRequest: (method, params) => handleMcpRequest(agent, method, params),
  });
  const timed = async (call) => {
    const r = await kernel.execute(
      `import time, json\nt = []\nfor _ in range(${CALLS}):\n` +
        `    s = time.perf_counter(); ${call}; t.append((time.perf_counter() - s) * 1000)\nprint(json.dumps(t))`,
    );
    return JSON.parse(r.output);
  };
  await kernel.execute("mcp.filesystem.list_allowed_directories()");
  const viaKernel = await timed("mcp.filesystem.list_allowed_directories()");
  const connection = clients.get("filesystem");
  const direct = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await connection.callTool("list_allowed_directories", {});
    direct.push(performance.now() - t);
  }
  const hostOnly = await timed("mcp.servers()");
  await kernel.shutdown();
  await clients.close();
  rmSync(dir, { recursive: true, force: true });
  return { viaKernel, direct, hostOnly };
}

const CELL =
  "import time\nt = time.perf_counter()\nr = mcp.filesystem.list_allowed_directories()\n" +
  "print((time.perf_counter() - t) * 1000)";
// A first cell without MCP, so that the kernel is up before the cell that calls the server is written
// (in a new session the kernel's own start would otherwise hide part of the server's).
const script = (ctx) => {
  if (ctx.lastToolResult === undefined) return { code: "print('ready')" };
  if (ctx.lastToolResult.trim() === "ready") return { code: CELL };
  return { text: ctx.lastToolResult.trim() };
};
const firsts = [];
const streamed = [];
const boots = [];
const loads = [];
const home = mkdtempSync(path.join(os.tmpdir(), "relm-bench-mcp-home-"));
// An instant model, and one that writes at about 280 characters a second (12 characters every 40 ms,
// some 80 tokens/s), as hosted models do: the server then starts while the cell is being written.
const instant = await startScriptedModel({ script });
const writing = await startScriptedModel({ script, chunkDelayMs: 40 });
try {
  await firstCall(instant, home); // caches the interpreter probe
  for (let i = 0; i < FIRSTS; i++) {
    firsts.push(await firstCall(instant, home));
    streamed.push(await firstCall(writing, home));
    boots.push(await serverBoot(home));
    loads.push(sdkLoad());
  }
} finally {
  await instant.close();
  await writing.close();
  rmSync(home, { recursive: true, force: true });
}
const later = await laterCalls();

const f = (v) => `${v.toFixed(2)} ms`;
console.log(
  `first call in a new session (SDK load + server start + handshake + tools/list + call), n=${FIRSTS}`,
);
const spread = (v) => `p50 ${f(median(v))}  min ${f(Math.min(...v))}  max ${f(Math.max(...v))}`;
console.log(`  instant model            ${spread(firsts)}  (timed in the cell)`);
console.log(
  `  model writing the cell   ${spread(streamed)}  (~280 chars/s: the server starts as it is named)`,
);
console.log(`  the server alone         p50 ${f(median(boots))}  (spawn to its initialize answer)`);
console.log(
  `  the SDK chunk alone      p50 ${f(median(loads.map((x) => x.ms)))}  (CPU ${f(median(loads.map((x) => x.cpuMs)))}, +${median(loads.map((x) => x.rssMb)).toFixed(1)} MB RSS; overlaps the server's start)`,
);
console.log(`later calls, list_allowed_directories, n=${CALLS}`);
const row = (name, v) =>
  console.log(
    `  ${name.padEnd(40)} p50 ${f(median(v))}  p90 ${f(quantile(v, 0.9))}  p99 ${f(quantile(v, 0.99))}`,
  );
row("from a cell (kernel -> host -> server)", later.viaKernel);
row("host -> server directly", later.direct);
row("mcp.servers() (kernel -> host only)", later.hostOnly);
console.log(`  added by the kernel path: p50 ${f(median(later.viaKernel) - median(later.direct))}`);
const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(" ");
console.log(`load average ${load}, ${os.cpus().length} CPUs`);
