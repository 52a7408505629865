// What the approvals' network proxy costs a kernel start (issue 20). A workspace session that can be
// asked (`--approve ask`, the default) runs its sandbox with an empty allow-list instead of no network,
// so that a granted host opens live: the host's proxy (one per sandbox) and, in front of every kernel,
// a forwarder (`python -I -S netfwd.py`) started inside the sandbox before the kernel. This measures
// workspace mode with the proxy (net: list, empty) against without (net: none, as `--approve never`),
// interleaved: a session's first kernel (a fresh sandbox + kernel + first cell), and a later kernel in
// the tree's open sandbox (a sub-agent's: kernel + first cell). `node bench/approvals-proxy.mjs` (RUNS=).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { median, quantile, ROOT, table } from "./lib.mjs";

const { findPython, startKernel } = await import(join(ROOT, "dist/kernel/index.js"));
const { openSandbox, settingsForMode } = await import(join(ROOT, "dist/kernel/sandbox/index.js"));
const { sandboxLauncher } = await import(join(ROOT, "dist/kernel/launchers/sandbox.js"));

const RUNS = Number(process.env.RUNS ?? 15);
const VARIANTS = [
  ["no proxy (net none)", { kind: "none" }],
  ["approvals proxy (net list, empty)", { kind: "list", rules: [] }],
];
const python = await findPython(process.env);
const project = mkdtempSync(join(os.tmpdir(), "relm-bench-proxy-project-"));
const session = mkdtempSync(join(os.tmpdir(), "relm-bench-proxy-session-"));
process.on("exit", () => {
  rmSync(project, { recursive: true, force: true });
  rmSync(session, { recursive: true, force: true });
});

const sandboxOf = (net) =>
  openSandbox({
    settings: settingsForMode("workspace", "workspace", structuredClone(net)),
    project,
    sessionDir: session,
    env: process.env,
    python: python.path,
  });

async function kernelIn(sandbox) {
  const kernel = await startKernel({ cwd: project, python, launcher: sandboxLauncher(sandbox) });
  const result = await kernel.execute("1 + 1");
  if (result.status !== "ok") throw new Error(`first cell: ${result.status}`);
  return kernel;
}

const first = new Map(VARIANTS.map(([name]) => [name, []]));
const later = new Map(VARIANTS.map(([name]) => [name, []]));
const open = new Map();
for (const [name, net] of VARIANTS) open.set(name, await sandboxOf(net));
// One warm-up of each, not counted (the page cache, the interpreter's first start).
for (const [name] of VARIANTS) await (await kernelIn(open.get(name))).shutdown();
for (let i = 0; i < RUNS; i++) {
  for (const [name, net] of i % 2 ? [...VARIANTS].reverse() : VARIANTS) {
    let t0 = performance.now();
    const sandbox = await sandboxOf(net);
    const kernel = await kernelIn(sandbox);
    first.get(name).push(performance.now() - t0);
    await kernel.shutdown();
    await sandbox.close();
    t0 = performance.now();
    const again = await kernelIn(open.get(name));
    later.get(name).push(performance.now() - t0);
    await again.shutdown();
  }
}
for (const sandbox of open.values()) await sandbox.close();

const ms = (n) => n.toFixed(0);
const rows = (label, runs) => {
  const base = median(runs.get(VARIANTS[0][0]));
  return VARIANTS.map(([name]) => {
    const t = runs.get(name);
    return {
      start: label,
      variant: name,
      "min ms": ms(Math.min(...t)),
      "median ms": ms(median(t)),
      "p90 ms": ms(quantile(t, 0.9)),
      "median vs none": `${median(t) - base >= 0 ? "+" : ""}${ms(median(t) - base)}`,
    };
  });
};
console.log(
  `# workspace kernel start + first cell, ${RUNS} interleaved runs each (load ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`,
);
table([...rows("first kernel (fresh sandbox)", first), ...rows("later kernel (open sandbox)", later)]);

// The part each kernel start waits for: the forwarder's interpreter (no site) up to its imports, as
// the sandbox's shell runs it before it execs the kernel (bwrap.ts).
const forwarder = [];
for (let i = 0; i < RUNS * 3; i++) {
  const t0 = performance.now();
  spawnSync(python.path, ["-I", "-S", "-c", "import os, socket, sys, threading"]);
  forwarder.push(performance.now() - t0);
}
console.log(`\n# the forwarder's interpreter start (python -I -S, its imports), ${RUNS * 3} runs`);
table([
  {
    "min ms": ms(Math.min(...forwarder)),
    "median ms": ms(median(forwarder)),
    "p90 ms": ms(quantile(forwarder, 0.9)),
  },
]);
