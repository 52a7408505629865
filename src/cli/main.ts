#!/usr/bin/env node
// Entry point. `--version` is answered before anything else is loaded, so it costs little more than Node.
import { relmVersion } from "./version.js";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${relmVersion()}\n`);
} else {
  const { main } = await import("./dispatch.js");
  process.exitCode = await main(argv);
}
