// `relm --version` beside bare Node: wall time (median of N runs) and peak RSS.
import { join } from "node:path";
import { measure, median, ROOT, table } from "./lib.mjs";

const RUNS = Number(process.env.RUNS ?? 20);
const relm = join(ROOT, "dist/cli/relm.cjs");

function series(args) {
  const runs = Array.from({ length: RUNS }, () =>
    measure(process.execPath, args, process.env, ROOT, { poll: false }),
  );
  return {
    wall: median(runs.map((r) => r.wall_ms)),
    rss: median(runs.map((r) => r.max_rss_kb)) / 1024,
  };
}

const node = series(["-e", "0"]);
const version = series([relm, "--version"]);
console.log(`# startup: median of ${RUNS} runs`);
table([
  { command: "node -e 0", "wall ms": node.wall.toFixed(1), "peak RSS MB": node.rss.toFixed(1) },
  {
    command: "relm --version",
    "wall ms": version.wall.toFixed(1),
    "peak RSS MB": version.rss.toFixed(1),
  },
]);
console.log(`relm/node wall ratio: ${(version.wall / node.wall).toFixed(2)}x (goal <= 1.5x)`);
