#!/usr/bin/env node
// Entry point. `--version` is answered before anything else is loaded, so it costs little more than Node.
// Everything else is one bundle (dist/cli/app.js, built by esbuild from dispatch.js): a hundred small
// modules cost ~60 ms more to resolve and load on every start than one file.

// `relm agents | head` closes the pipe early: that is not an error worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
});

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  const { relmVersion } = await import("./version.js");
  process.stdout.write(`${relmVersion()}\n`);
} else {
  const asHost = argv[0] === "run" ? argv.indexOf("--as-host") : -1;
  const hostId = asHost > 0 ? argv[asHost + 1] : undefined;
  if (hostId) {
    // Started again by an idle session's stub: the socket is inherited, not bound (src/host/handoff.ts).
    const adopt = argv.indexOf("--adopt");
    const { bindEarly } = await import("../host/early-bind.js");
    await bindEarly(hostId, adopt > 0 ? argv[adopt + 1] : undefined);
  }
  const listing = argv[0] === "agents" ? agentsFlags(argv.slice(1)) : undefined;
  if (listing) {
    const entry = "./agents.js";
    const { mainAgents } = (await import(entry)) as typeof import("./agents-entry.js");
    process.exitCode = await mainAgents(listing);
  } else if (argv.length === 0 && opensUiDirectly(process.env)) {
    const entry = "./ui.js";
    const { mainUi } = (await import(entry)) as typeof import("./ui-entry.js");
    process.exitCode = await mainUi();
  } else {
    const bundle = "./app.js";
    const { main } = (await import(bundle)) as typeof import("./dispatch.js");
    process.exitCode = await main(argv);
  }
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
