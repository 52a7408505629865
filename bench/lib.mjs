// Shared helpers for the benchmarks: process measurement and small statistics.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MEASURE = fileURLToPath(new URL("./measure.py", import.meta.url));

/** Wall time and memory of one run of a command (see measure.py for what each figure means). */
export function measure(cmd, args, env = process.env, cwd = ROOT, { poll = true } = {}) {
  const out = execFileSync("python3", [MEASURE, ...(poll ? [] : ["--no-poll"]), cmd, ...args], {
    env,
    cwd,
    encoding: "utf8",
  });
  const result = JSON.parse(out);
  if (result.code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return result;
}

/** Like measure(), without blocking this process's event loop (for benchmarks that serve HTTP themselves). */
export async function measureAsync(cmd, args, env = process.env, cwd = ROOT) {
  const { stdout } = await promisify(execFile)("python3", [MEASURE, cmd, ...args], {
    env,
    cwd,
    encoding: "utf8",
  });
  const result = JSON.parse(stdout);
  if (result.code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return result;
}

export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

export const median = (values) => quantile(values, 0.5);

export function table(rows) {
  const widths = Object.keys(rows[0]).map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join("  ");
  console.log(line(Object.keys(rows[0])));
  for (const r of rows) console.log(line(Object.values(r)));
}

/** A private RELM_HOME and the environment that points relm at a scripted model. */
export function scriptedEnv(model, prefix = "relm-bench-home-") {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const env = {
    ...process.env,
    RELM_HOME: home,
    RELM_BASE_URL: model.openaiBaseUrl,
    RELM_MODEL: "bench",
    NO_COLOR: "1",
  };
  return { home, env };
}

/**
 * A single-node Slurm cluster (munged, slurmctld, slurmd as root) for the launcher benches: the tests'
 * own helper (test/support/slurm.ts), bundled with esbuild on the fly. Undefined when the daemons are
 * not installed or this is not root; `cluster.stop()` ends it.
 */
export async function startTestSlurm(options = {}) {
  const { build } = await import("esbuild");
  const out = join(mkdtempSync(join(tmpdir(), "relm-bench-slurm-")), "slurm.mjs");
  await build({
    entryPoints: [join(ROOT, "test/support/slurm.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: out,
    logLevel: "warning",
  });
  const { slurmAvailable, startSlurm } = await import(out);
  return slurmAvailable() ? startSlurm(options) : undefined;
}

/** A private sshd on 127.0.0.1 (test/support/sshd.ts, bundled like startTestSlurm); undefined without sshd. */
export async function startTestSshd() {
  const { build } = await import("esbuild");
  const out = join(mkdtempSync(join(tmpdir(), "relm-bench-sshd-")), "sshd.mjs");
  await build({
    entryPoints: [join(ROOT, "test/support/sshd.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: out,
    logLevel: "warning",
  });
  const { sshdAvailable, startSshd } = await import(out);
  return sshdAvailable() ? startSshd() : undefined;
}
