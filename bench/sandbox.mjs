// What the kernel sandbox costs a one-shot run (issue 12: `relm run --sandbox` within 50 ms of an
// unsandboxed run). An instant scripted model: task -> one cell `print(1+1)` -> answer. The variants
// run interleaved (plain, --sandbox, --sandbox with an --allow-net list, ...) so machine load hits them
// alike; wall time of the whole process tree, median and p90. Also bubblewrap alone around /bin/true.
import { execFile } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { startScriptedModel } from "../dist/scripted/index.js";
import { median, quantile, ROOT, scriptedEnv, table } from "./lib.mjs";

/** True when every chunk a file of the bundle imports is there (a copy taken mid-build is not). */
function complete(cli) {
  if (!existsSync(join(cli, "app.js"))) return false;
  for (const f of readdirSync(cli).filter((n) => n.endsWith(".js"))) {
    for (const m of readFileSync(join(cli, f), "utf8").matchAll(/"\.\/((?:chunk-[A-Z0-9]+|app)\.js)"/g))
      if (!existsSync(join(cli, m[1]))) return false;
  }
  return true;
}

// A copy of the build (as bench/mcp.mjs): other people's rebuilds while this runs cannot break it. Its
// python/ is a symlink into /tmp, which the sandbox hides: relm's package is bound back by real path.
const BUILD = mkdtempSync(join(os.tmpdir(), "relm-bench-sandbox-build-"));
process.on("exit", () => rmSync(BUILD, { recursive: true, force: true }));
for (let attempt = 0; ; attempt++) {
  rmSync(join(BUILD, "dist"), { recursive: true, force: true });
  cpSync(join(ROOT, "dist"), join(BUILD, "dist"), { recursive: true });
  if (complete(join(BUILD, "dist/cli"))) break;
  if (attempt === 20) throw new Error("dist/ is incomplete: run npm run build");
  await new Promise((resolve) => setTimeout(resolve, 3000));
}
copyFileSync(join(ROOT, "package.json"), join(BUILD, "package.json"));
symlinkSync(join(ROOT, "python"), join(BUILD, "python"));
symlinkSync(join(ROOT, "node_modules"), join(BUILD, "node_modules"));

const RUNS = Number(process.env.RUNS ?? 15);
const VARIANTS = [
  { name: "plain", args: [] },
  { name: "--sandbox", args: ["--sandbox"] },
  { name: "--sandbox --allow-net=pypi.org", args: ["--sandbox", "--allow-net=pypi.org"] },
  { name: "--sandbox --allow-net", args: ["--sandbox", "--allow-net"] },
];

// Wall time of one command, with no sampler running beside it. (CPU from rusage is not reported: the
// sandbox's processes are reaped inside its pid namespace and never reach the tree's accounting.)
const TIMER = `
import json, resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
w = time.perf_counter() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": w * 1000, "cpu": (u.ru_utime + u.ru_stime) * 1000, "code": p.returncode, "err": p.stderr.decode(errors="replace")[-800:]}))
`;
const run = promisify(execFile);
async function timed(cmd, args, env) {
  const { stdout } = await run("python3", ["-c", TIMER, cmd, ...args], { env, encoding: "utf8" });
  const r = JSON.parse(stdout);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.code}: ${r.err}`);
  return r;
}

const ms = (n) => n.toFixed(0);
const delta = (n) => `${n >= 0 ? "+" : ""}${n.toFixed(0)}`;

// Kernel start and first cell, in this process (no relm run around it): spawned plain, spawned in the
// sandbox (no network; with an allow-list), interleaved. The sandbox's share of a one-shot run.
async function kernelStarts(n) {
  const { findPython, startKernel } = await import(join(BUILD, "dist/kernel/index.js"));
  const { openSandbox, netPolicyOf } = await import(join(BUILD, "dist/kernel/sandbox/index.js"));
  const { sandboxLauncher } = await import(join(BUILD, "dist/kernel/launchers/sandbox.js"));
  const python = await findPython(process.env);
  const project = mkdtempSync(join(os.tmpdir(), "relm-bench-sandbox-project-"));
  const open = async (allow) =>
    sandboxLauncher(
      await openSandbox({
        settings: { mode: "workspace", net: netPolicyOf(allow) },
        project,
        env: process.env,
        python: python.path,
      }),
    );
  const kinds = [
    ["plain", async () => undefined],
    ["--sandbox", () => open([])],
    ["--sandbox --allow-net=pypi.org", () => open(["pypi.org"])],
  ];
  const times = new Map(kinds.map(([k]) => [k, []]));
  for (let i = 0; i < n; i++) {
    for (const [name, make] of kinds) {
      const t0 = performance.now();
      const launcher = await make();
      const kernel = await startKernel({ cwd: project, python, ...(launcher ? { launcher } : {}) });
      await kernel.execute("1 + 1");
      times.get(name).push(performance.now() - t0);
      await kernel.shutdown();
    }
  }
  rmSync(project, { recursive: true, force: true });
  const base = Math.min(...times.get("plain"));
  console.log(
    `# kernel start + first cell, in process (${n} interleaved runs each, load ${os.loadavg()[0].toFixed(1)})`,
  );
  table(
    kinds.map(([name]) => {
      const t = times.get(name);
      return {
        kernel: name,
        "min ms": ms(Math.min(...t)),
        "median ms": ms(median(t)),
        "min vs plain": delta(Math.min(...t) - base),
      };
    }),
  );
  console.log("");
}

if (process.env.ONLY === "kernel") {
  await kernelStarts(Number(process.env.RUNS ?? 15));
  process.exit(0);
}
await kernelStarts(Number(process.env.RUNS ?? 15));

const model = await startScriptedModel({
  script: (ctx) =>
    ctx.lastToolResult ? { text: `the kernel said ${ctx.lastToolResult.trim()}` } : { code: "print(1+1)" },
});
const { home, env } = scriptedEnv(model, "relm-bench-sandbox-");
try {
  const main = join(BUILD, "dist/cli/relm.cjs");
  // The interpreter probe is cached by the first run; not counted.
  await timed(process.execPath, [main, "run", "what is 1+1?"], env);
  const results = new Map(VARIANTS.map((v) => [v.name, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const v of VARIANTS) {
      results
        .get(v.name)
        .push(await timed(process.execPath, [main, "run", ...v.args, "--", "what is 1+1?"], env));
    }
  }
  const stat = (name, key, f) => f(results.get(name).map((r) => r[key]));
  const min = (xs) => Math.min(...xs);
  const load = os.loadavg()[0].toFixed(1);
  console.log(
    `# relm run, instant scripted model, one cell: ${RUNS} interleaved runs each (load ${load} on ${os.cpus().length} cores)`,
  );
  table(
    VARIANTS.map((v) => ({
      run: v.name,
      "wall min": ms(stat(v.name, "wall", min)),
      "wall median": ms(stat(v.name, "wall", median)),
      "wall p90": ms(stat(v.name, "wall", (xs) => quantile(xs, 0.9))),
      "min vs plain": delta(stat(v.name, "wall", min) - stat("plain", "wall", min)),
      "median vs plain": delta(stat(v.name, "wall", median) - stat("plain", "wall", median)),
    })),
  );
  // The sandbox's own cost, apart from the run's noise: bubblewrap around /bin/true, namespace by
  // namespace, interleaved; the minimum is the figure least disturbed by other load.
  const base = [
    "--die-with-parent",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
  ];
  const bare = [
    ["/bin/true", []],
    ["bwrap, mounts only", [...base]],
    ["+ pid namespace", ["--unshare-pid", ...base]],
    ["+ pid, ipc, uts", ["--unshare-pid", "--unshare-ipc", "--unshare-uts", ...base]],
    [
      "+ pid, ipc, uts, net (--sandbox)",
      ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", ...base],
    ],
  ];
  const times = new Map(bare.map(([name]) => [name, []]));
  for (let i = 0; i < 60; i++) {
    for (const [name, args] of bare) {
      const cmd = args.length === 0 ? ["/bin/true"] : ["bwrap", ...args, "/bin/true"];
      times.get(name).push((await timed(cmd[0], cmd.slice(1), process.env)).wall);
    }
  }
  console.log("\n# bubblewrap alone around /bin/true (60 interleaved runs each)");
  table(
    bare.map(([name]) => {
      const t = times.get(name);
      return {
        command: name,
        "min ms": Math.min(...t).toFixed(1),
        "p25 ms": quantile(t, 0.25).toFixed(1),
        "median ms": median(t).toFixed(1),
      };
    }),
  );
  console.log("goal: --sandbox under 50 ms more than plain");
} finally {
  await model.close();
  rmSync(home, { recursive: true, force: true });
}
