// Real MCP servers from npm (devDependencies) for the MCP tests: server-everything and
// server-filesystem over stdio, and server-everything over Streamable HTTP or HTTP+SSE.

import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { updateTrust } from "../../src/config/trust.js";
import { approveServer, loadMcpConfig } from "../../src/mcp/index.js";
import { closedPort, ROOT } from "./cli.js";
import { until } from "./wait.js";

export const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
/** test/support/mcp-fixture.mjs: a hand-written stdio server that can misbehave (see its modes). */
export const FIXTURE = join(ROOT, "test/support/mcp-fixture.mjs");

export type FixtureMode = "bad-init" | "silent" | "hostile" | "probe";

export function fixtureStdio(mode: FixtureMode) {
  return { command: process.execPath, args: [FIXTURE, mode] };
}

/** The fixture started through `sh`, which first writes its pid to `pidFile` (did it start; is it gone). */
export function fixtureWithPidFile(mode: FixtureMode, pidFile: string) {
  return {
    command: "/bin/sh",
    args: ["-c", `echo $$ > '${pidFile}'; exec '${process.execPath}' '${FIXTURE}' ${mode}`],
  };
}

/**
 * Approves every server of the project's MCP files as they are now, as `relm mcp approve --all` does
 * (the same code), for tests about something else than trust (test/e2e/mcp/mcp-trust.test.ts runs the
 * command itself).
 */
export function approveProjectServers(cwd: string, home: string): void {
  const servers = loadMcpConfig(cwd, home, process.env).servers.filter((s) => s.approval);
  updateTrust(home, (store) => {
    for (const server of servers) approveServer(store, server, false);
  });
}

/** `{command, args, env}` entries for `.mcp.json`. */
export function everythingStdio(env: Record<string, string> = {}) {
  return { command: process.execPath, args: [EVERYTHING, "stdio"], env };
}

export function filesystemStdio(dir: string) {
  return { command: process.execPath, args: [FILESYSTEM, dir] };
}

/**
 * A stdio server started through `sh`, which first writes its pid to `pidFile` (so a test can see
 * whether it ever started, and kill it) and a line to stderr.
 */
export function everythingWithPidFile(pidFile: string, env: Record<string, string> = {}) {
  return {
    command: "/bin/sh",
    args: [
      "-c",
      `echo $$ > '${pidFile}'; echo "everything: starting as $$" >&2; exec '${process.execPath}' '${EVERYTHING}' stdio`,
    ],
    env,
  };
}

export interface HttpServer {
  url: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/** server-everything serving Streamable HTTP (`/mcp`) or the older HTTP+SSE (`/sse`) on a free port. */
export async function startEverythingHttp(mode: "streamableHttp" | "sse"): Promise<HttpServer> {
  const port = await closedPort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  await until(() => (/listening|running on port/i.test(output) ? true : undefined), 30_000);
  const url = `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}`;
  return {
    url,
    child,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Pids of processes whose command line mentions `needle` (Linux /proc). */
export function processesWith(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
