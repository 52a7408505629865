import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { poll } from "./wait.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const RELM_BIN = join(ROOT, "dist/cli/relm.cjs");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Environment with nothing of the developer's own relm or provider settings leaking into a test. It
 * pins the permission mode to full (RELM_MODE), as every test written before modes assumed: the default
 * is workspace where bubblewrap works. Tests of the mode, or of the default, give their own RELM_MODE
 * ("" for none: the default decides).
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // Provider keys and endpoints too: a key in the environment chooses its provider (docs/providers.md).
    if (/^(RELM_|OPENAI_|ANTHROPIC_|AZURE_OPENAI_)/.test(k)) continue;
    if (
      /^(OPENROUTER|GEMINI|GOOGLE|GROQ|DEEPSEEK|MISTRAL|XAI|TOGETHER|FIREWORKS|CEREBRAS|VLLM)_API_KEY$/.test(
        k,
      )
    )
      continue;
    if (k === "OLLAMA_HOST") continue;
    env[k] = v;
  }
  const out: NodeJS.ProcessEnv = { ...env, NO_COLOR: "1", RELM_MODE: "full", ...extra };
  if (out.RELM_MODE === "") delete out.RELM_MODE;
  return out;
}

/**
 * Runs the built `relm` binary as a real process; `bin` runs another copy (an installed one) as a user
 * would, through its shebang.
 */
export function runRelm(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number; bin?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [command, argv] = options.bin ? [options.bin, args] : [process.execPath, [RELM_BIN, ...args]];
    const child = spawn(command, argv, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`relm ${args.join(" ")} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

export function tempDir(prefix = "relm-test-"): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** A TCP port on 127.0.0.1 with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Pids of relm's Python processes (kernel runners, kernel templates and the kernels forked from them)
 * started by a relm whose RELM_HOME is `home`. A fork keeps its template's start-up environment, so the
 * variable identifies every one of them, wherever they chdir'd.
 */
export function pythonsOf(home: string): number[] {
  const marker = `\0RELM_HOME=${home}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!cmdline.includes("relm.runner") && !cmdline.includes("relm.template")) continue;
      if (`\0${readFileSync(`/proc/${entry}/environ`, "utf8")}`.includes(marker)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked, or is not ours to inspect.
    }
  }
  return pids;
}

/**
 * The kernels of `home` still running `timeoutMs` after the call (none: []), each with its command line
 * and parent. A kernel killed as relm exits can take a moment to go on a loaded machine (the template
 * waits a second for it, then leaves the SIGKILLed process to the system); one that is still there after
 * the wait was left behind.
 */
export async function kernelsLeft(home: string, timeoutMs = 20_000): Promise<string[]> {
  const gone = await poll(() => (pythonsOf(home).length === 0 ? true : undefined), timeoutMs);
  return gone ? [] : pythonsOf(home).map((pid) => `${pid}: ${describeProcess(pid)}`);
}

function describeProcess(pid: number): string {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    const ppid = /PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    const parent = ppid ? readFileSync(`/proc/${ppid}/cmdline`, "utf8").split("\0").join(" ").trim() : "?";
    return `${cmd} (parent ${ppid}: ${parent})`;
  } catch {
    return "(gone)";
  }
}

/** `relm agents --json` with `env`: one object a session (exit 0, or an error with what it printed). */
export async function listAgents<T>(env: NodeJS.ProcessEnv): Promise<T[]> {
  const result = await runRelm(["agents", "--json"], { env });
  if (result.code !== 0) throw new Error(`relm agents --json exited ${result.code}: ${result.stderr}`);
  return result.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

/**
 * The io a CLI action takes (stdout, stderr, env, cwd), run in-process: what it writes is kept, read
 * back with out() and err().
 */
export function capturedIo(env: NodeJS.ProcessEnv, cwd: string) {
  const kept = () => {
    const stream = new PassThrough();
    let text = "";
    stream.on("data", (d: Buffer) => {
      text += d.toString("utf8");
    });
    return { stream, text: () => text };
  };
  const out = kept();
  const err = kept();
  return { io: { stdout: out.stream, stderr: err.stream, env, cwd }, out: out.text, err: err.text };
}
