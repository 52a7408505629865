#!/usr/bin/env node
// Entry point. `--version` is answered before anything else is loaded, so it costs little more than Node.
// Everything else is one bundle (dist/cli/app.js, built by esbuild from dispatch.js): a hundred small
// modules cost ~60 ms more to resolve and load on every start than one file.
import { relmVersion } from "./version.js";

// `relm agents | head` closes the pipe early: that is not an error worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
});

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${relmVersion()}\n`);
} else {
  const asHost = argv[0] === "run" ? argv.indexOf("--as-host") : -1;
  const hostId = asHost > 0 ? argv[asHost + 1] : undefined;
  if (hostId) {
    const { bindEarly } = await import("../host/early-bind.js");
    await bindEarly(hostId);
  }
  const bundle = "./app.js";
  const { main } = (await import(bundle)) as typeof import("./dispatch.js");
  process.exitCode = await main(argv);
}
