// What the protocol SDKs cost: the chunk behind `relm acp` and the one behind `relm mcp serve` (each
// with the SDK, zod and what else only that path loads) imported into a fresh Node that has already
// loaded the CLI's own bundle, as the command does. Wall and CPU time of the import (CPU time stays
// meaningful on a busy machine), and the resident memory it adds; median of N runs.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { median, ROOT, table } from "./lib.mjs";

const RUNS = Number(process.env.RUNS ?? 15);
const cli = join(ROOT, "dist/cli");

/** The bundle chunk whose code contains `marker` (chunk names are content hashes). */
function chunkWith(marker) {
  const file = readdirSync(cli).find(
    (f) => f.startsWith("chunk-") && readFileSync(join(cli, f), "utf8").includes(marker),
  );
  if (!file) throw new Error(`no chunk contains ${marker}: run npm run build`);
  return join(cli, file);
}

const PROBE = `
const app = process.argv[1], chunk = process.argv[2];
await import(app);
const rss0 = process.memoryUsage().rss, cpu0 = process.cpuUsage(), t0 = performance.now();
if (chunk) await import(chunk);
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ wall: performance.now() - t0, cpu: (cpu.user + cpu.system) / 1000, rss: (process.memoryUsage().rss - rss0) / 1048576 }));
`;

function series(chunk) {
  const runs = Array.from({ length: RUNS }, () =>
    JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", PROBE, join(cli, "app.js"), chunk ?? ""], {
        encoding: "utf8",
      }),
    ),
  );
  return {
    wall: median(runs.map((r) => r.wall)),
    cpu: median(runs.map((r) => r.cpu)),
    rss: median(runs.map((r) => r.rss)),
  };
}

const rows = [
  ["relm acp (ACP SDK, zod)", series(chunkWith("ACP agent on stdio"))],
  ["relm mcp serve (MCP SDK, zod, ajv)", series(chunkWith("MCP server on stdio"))],
];
console.log(`# protocol servers: loading what only their path loads, median of ${RUNS} runs`);
table(
  rows.map(([path, s]) => ({
    path,
    "wall ms": s.wall.toFixed(0),
    "CPU ms": s.cpu.toFixed(0),
    "RSS MB": s.rss.toFixed(1),
  })),
);
