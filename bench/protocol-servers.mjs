// What the protocol SDKs cost at start: `relm acp` and `relm mcp serve` from spawn to their answer to
// `initialize` (the SDK chunks are loaded only on these paths), beside `relm acp --help`, which loads
// the same command-line program without them. Median of N runs, and the server's resident memory when
// it answered.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { median, ROOT, table } from "./lib.mjs";

const RUNS = Number(process.env.RUNS ?? 9);
const relm = join(ROOT, "dist/cli/main.js");

const INIT = {
  acp: { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } },
  mcp: {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  },
};

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Spawn to the first answer line; `message` undefined: until the process exits. */
function once(args, message) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [relm, ...args], { stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (message && out.includes("\n")) {
        const wall = performance.now() - t0;
        const rss = rssMb(child.pid);
        child.kill();
        if (!out.includes('"result"')) reject(new Error(`no result: ${out}`));
        resolve({ wall, rss });
      }
    });
    child.on("error", reject);
    child.on("exit", () => {
      if (!message) resolve({ wall: performance.now() - t0, rss: Number.NaN });
    });
    if (message) child.stdin.write(`${JSON.stringify(message)}\n`);
    else child.stdin.end();
  });
}

async function series(args, message) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once(args, message));
  return { wall: median(runs.map((r) => r.wall)), rss: median(runs.map((r) => r.rss)) };
}

const help = await series(["acp", "--help"]);
const acp = await series(["acp"], INIT.acp);
const mcp = await series(["mcp", "serve"], INIT.mcp);
console.log(`# protocol servers: spawn to the initialize answer, median of ${RUNS} runs`);
const row = (command, s) => ({
  command,
  "wall ms": s.wall.toFixed(0),
  "over --help ms": (s.wall - help.wall).toFixed(0),
  "RSS MB": Number.isNaN(s.rss) ? "-" : s.rss.toFixed(0),
});
table([row("relm acp --help", help), row("relm acp", acp), row("relm mcp serve", mcp)]);
