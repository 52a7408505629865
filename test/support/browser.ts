// A real browser for the tests of relm web: Debian's chromium driven by playwright-core (.ci/needs
// installs it). Without it those tests are skipped, saying why.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe } from "vitest";
import { RELM_BIN } from "./cli.js";
import { until } from "./wait.js";

export const CHROMIUM = "/usr/bin/chromium";
/** Why the browser tests cannot run here, or undefined when they can. */
export const noBrowser = existsSync(CHROMIUM)
  ? undefined
  : `no ${CHROMIUM} (apt-get install chromium; .ci/needs lists it)`;

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  // As root (CI containers) chromium's own sandbox cannot start.
  const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  return chromium.launch({ executablePath: CHROMIUM, args });
}

/** The worker's chromium, once a file has asked for it. */
let shared: Promise<Browser> | undefined;

/**
 * The chromium of this test worker: launched for the first file that needs one (~1.5 CPU-s) and kept for
 * the next files the worker runs (vitest.config.ts: files share workers), again if it went away.
 * Playwright ends it when the worker exits.
 */
async function workerBrowser(): Promise<Browser> {
  const current = await shared?.catch(() => undefined);
  if (current?.isConnected()) return current;
  shared = launchBrowser();
  return shared;
}

/**
 * A describe block whose tests share the worker's chromium, each test in contexts of its own; skipped,
 * saying why, where there is none (or for `skip`, another reason). `browser()` in a test is that browser.
 * After the block, the contexts it left open are closed: the next file starts with none.
 */
export function describeInBrowser(
  title: string,
  body: (browser: () => Browser) => void,
  skip: string | undefined = noBrowser,
): void {
  describe.skipIf(skip !== undefined)(`${title}${skip ? ` (skipped: ${skip})` : ""}`, () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await workerBrowser();
    }, 60_000);
    afterAll(async () => {
      await Promise.all((browser?.contexts() ?? []).map((context) => context.close()));
    });
    body(() => {
      if (!browser) throw new Error("chromium did not start (see the beforeAll failure)");
      return browser;
    });
  });
}

export interface WebProcess {
  /** The address printed, with its token. */
  url: string;
  /** http://127.0.0.1:PORT */
  base: string;
  port: number;
  token: string;
  process: ChildProcess;
  stderr(): string;
  /** Stops it as Ctrl-C does, and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills it with no goodbye (a dropped connection), and waits for it to exit. */
  kill(): Promise<void>;
}

/** `relm web` as a user starts it, with the rig's environment; resolves once it printed its address. */
export async function startWeb(
  env: NodeJS.ProcessEnv,
  args: string[] = ["--port", "0"],
): Promise<WebProcess> {
  const child = spawn(process.execPath, [RELM_BIN, "web", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d) => {
    stderr += d;
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = await until(() => {
    if (child.exitCode !== null) throw new Error(`relm web exited: ${stderr}`);
    return /http:\/\/\S+\?token=\S+/.exec(stdout)?.[0];
  }, 30_000);
  const parsed = new URL(url);
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    url,
    base: parsed.origin,
    port: Number(parsed.port),
    token: parsed.searchParams.get("token") ?? "",
    process: child,
    stderr: () => stderr,
    stop: () => end("SIGTERM"),
    kill: () => end("SIGKILL"),
  };
}
