#!/usr/bin/env node
// Entry point, installed as dist/cli/relm.cjs (scripts/bundle.mjs converts this file): a CommonJS
// entry starts ~8 ms of CPU sooner than an ES module one (no module loader to set up), which is most of
// what `relm --version` and `relm agents` cost beyond Node itself. Each path loads only what it needs,
// named through variables so that nothing is pulled in ahead of time: `--version` a small module,
// `relm agents` its own CommonJS bundle, `relm web` the web server's bundle (dist/cli/web.js), bare
// `relm` at a terminal the UI's bundle, everything else the
// command bundle (dist/cli/app.js, built by esbuild from dispatch.js: a hundred small modules cost ~60 ms
// more to resolve and load on every start than one file). dist/cli/main.js is the same file as an ES
// module, for `node dist/cli/main.js`.

import { isAbsolute, resolve } from "node:path";

// `relm agents | head` closes the pipe early: that is not an error worth a stack trace. A command with
// work to save (`relm run`) listens too and ends that work itself, as on SIGTERM. Any other error
// (`relm run > file` on a full disk) lost the output: said, and exit 1 whatever the command returns,
// once its work is done (the event may come before or after its exit code is set).
let unwritten = false;
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") {
    if (process.stdout.listenerCount("error") === 1) process.exit(0);
    return;
  }
  if (process.stdout.isTTY) return; // the terminal is gone (EIO): nobody to tell, and the UI leaves itself
  if (!unwritten) process.stderr.write(`relm: could not write the output (stdout): ${error.message}\n`);
  unwritten = true;
  process.exitCode = 1;
});
// stderr that cannot be written either (`2>&1` on that disk): nobody can be told, and its unhandled
// 'error' killed relm at its first line of progress, a run before its task was sent.
process.stderr.on("error", () => {});
const setExit = (code: number) => {
  process.exitCode = unwritten && code === 0 ? 1 : code;
};

start(process.argv.slice(2)).catch((error: Error) => {
  process.stderr.write(`relm: ${error.message}\n`);
  process.exitCode = 1;
});

async function start(argv: string[]): Promise<void> {
  absoluteHome(process.env);
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    process.stdout.write(`${await version()}\n`);
    return;
  }
  const asHost = argv[0] === "run" ? argv.indexOf("--as-host") : -1;
  const hostId = asHost > 0 ? argv[asHost + 1] : undefined;
  if (hostId) {
    // Started again by an idle session's stub: the socket is inherited, not bound (src/host/handoff.ts).
    const adopt = argv.indexOf("--adopt");
    const early = "../host/early-bind.js";
    const { bindEarly } = (await import(early)) as typeof import("../host/early-bind.js");
    await bindEarly(hostId, adopt > 0 ? argv[adopt + 1] : undefined);
  }
  const listing = argv[0] === "agents" ? agentsFlags(argv.slice(1)) : undefined;
  const web = argv[0] === "web" ? webFlags(argv.slice(1)) : undefined;
  if (listing) {
    const { mainAgents } = (await loadAgents()) as typeof import("./agents-entry.js");
    setExit(await mainAgents(listing));
  } else if (web) {
    const entry = "./web.js";
    const { mainWeb } = (await import(entry)) as typeof import("./web-entry.js");
    setExit(await mainWeb(web));
  } else if (argv.length === 0 && opensUiDirectly(process.env)) {
    const entry = "./ui.js";
    const { mainUi } = (await import(entry)) as typeof import("./ui-entry.js");
    setExit(await mainUi());
  } else {
    const bundle = "./app.js";
    const { main } = (await import(bundle)) as typeof import("./dispatch.js");
    setExit(await main(argv));
  }
}

/**
 * A relative RELM_HOME made absolute, once, for this process and every process it starts: a host
 * revived in its session's folder, the waker and the kernels run elsewhere, where the same words would
 * name another home (an empty one, made inside the project).
 */
function absoluteHome(env: NodeJS.ProcessEnv): void {
  const home = env.RELM_HOME?.trim();
  if (home && home !== "~" && !home.startsWith("~/") && !isAbsolute(home)) env.RELM_HOME = resolve(home);
}

/** package.json's version: read as data where this runs as CommonJS, without the module loader. */
async function version(): Promise<string> {
  const pkg = "../../package.json";
  if (typeof require === "function") return (require(pkg) as { version: string }).version;
  const module = "../config/version.js";
  return ((await import(module)) as typeof import("../config/version.js")).relmVersion();
}

/** dist/cli/agents.cjs: required where this file runs as CommonJS (relm.cjs), no module loader at all. */
async function loadAgents(): Promise<unknown> {
  const bundle = "./agents.cjs";
  if (typeof require === "function") return require(bundle);
  const { createRequire } = await import("node:module");
  return createRequire(import.meta.url)(bundle);
}

/** Bare `relm` where the UI can be drawn (front-end.ts's uiAvailable, repeated here to load nothing). */
function opensUiDirectly(env: NodeJS.ProcessEnv): boolean {
  const noTui = Boolean(env.RELM_NO_TUI) && env.RELM_NO_TUI !== "0";
  return Boolean(process.stdin.isTTY && process.stdout.isTTY) && env.TERM !== "dumb" && !noTui;
}

/** `relm agents` with nothing but --json, --all or -a (each once): the lean entry; anything else parses. */
function agentsFlags(rest: string[]): { json: boolean; all: boolean } | undefined {
  const known = new Set(["--json", "--all", "-a"]);
  if (!rest.every((a) => known.has(a)) || new Set(rest).size !== rest.length) return undefined;
  return { json: rest.includes("--json"), all: rest.includes("--all") || rest.includes("-a") };
}

/**
 * `relm web` with nothing but --port N, --host ADDR (or --port=N, --host=ADDR) and --open, each at most
 * once: the lean entry; anything else (--help, a typo, a value missing) parses and is explained there.
 */
function webFlags(rest: string[]): { port?: string; host?: string; open?: boolean } | undefined {
  const flags: { port?: string; host?: string; open?: boolean } = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    const eq = /^--(port|host)=(.*)$/.exec(arg);
    const name = eq ? eq[1] : arg === "--port" || arg === "--host" ? arg.slice(2) : undefined;
    if (name === "port" || name === "host") {
      const value = eq ? eq[2] : rest[++i];
      if (value === undefined || value.startsWith("-") || flags[name] !== undefined) return undefined;
      flags[name] = value;
    } else if (arg === "--open" && !flags.open) flags.open = true;
    else return undefined;
  }
  return flags;
}
