// What telling a person's connection from a kernel's costs a session host (src/host/peer.ts,
// peer-creds.ts; Linux): the first question (the helper starts), then each connection that needs to
// know (SO_PEERCRED over the helper's IPC channel, then the /proc walk), against one that does not.
// Run after `npm run build`:   node bench/peer-check.mjs [connections=300]
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { classifyPeer } from "../dist/host/peer.js";
import { PeerIdentifier } from "../dist/host/peer-creds.js";
import { SessionServer } from "../dist/host/server.js";
import { findPython } from "../dist/kernel/index.js";
import { median, quantile, table } from "./lib.mjs";

if (process.platform !== "linux") {
  console.log("peer identification is Linux-only");
  process.exit(0);
}
const N = Number(process.argv[2] ?? 300);
const home = mkdtempSync(join(tmpdir(), "relm-bench-peer-"));
const python = await findPython(process.env);
const peers = new PeerIdentifier(python.path);
const identified = [];
const server = await SessionServer.listen(home, "bench0000");
server.serve({
  replay: (after) => after,
  call: () => ({ ok: true }),
  identify: async (socket) => {
    const t0 = performance.now();
    const peer = await peers.identify(socket);
    identified.push(performance.now() - t0);
    return peer;
  },
});

/** One connection: connect, one request, its answer, close. Milliseconds. */
function once(method) {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(server.path);
    let got = "";
    socket.setEncoding("utf8");
    socket.on("connect", () =>
      socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} })}\n`),
    );
    socket.on("data", (d) => {
      got += d;
      if (!got.includes("\n")) return;
      const answer = JSON.parse(got.slice(0, got.indexOf("\n")));
      if (answer.error) reject(new Error(answer.error.message));
      socket.end();
      resolve(performance.now() - t0);
    });
    socket.on("error", reject);
  });
}

const first = await once("send");
const helperStart = identified[0];
identified.length = 0;

const plain = [];
const checked = [];
for (let i = 0; i < N; i++) {
  plain.push(await once("status")); // read-only: never identified
  checked.push(await once("send")); // identified: helper round trip + /proc walk
}
const perConnection = identified.splice(0);

const walks = [];
for (let i = 0; i < N; i++) {
  const t0 = performance.now();
  classifyPeer(process.pid);
  walks.push(performance.now() - t0);
}

const burst = 50;
const t0 = performance.now();
await Promise.all(Array.from({ length: burst }, () => once("send")));
const burstMs = performance.now() - t0;

server.close();
peers.close();
rmSync(home, { recursive: true, force: true });

const ms = (v) => `${v.toFixed(2)} ms`;
console.log(`${N} sequential connections each; python ${python.path}`);
console.log(
  `first identified connection (starts the helper): ${ms(first)} (identification ${ms(helperStart)})`,
);
table([
  { what: "connect + status (not identified)", p50: ms(median(plain)), p90: ms(quantile(plain, 0.9)) },
  { what: "connect + send (identified)", p50: ms(median(checked)), p90: ms(quantile(checked, 0.9)) },
  {
    what: "identification alone (helper + /proc)",
    p50: ms(median(perConnection)),
    p90: ms(quantile(perConnection, 0.9)),
  },
  { what: "/proc walk alone (classifyPeer)", p50: ms(median(walks)), p90: ms(quantile(walks, 0.9)) },
]);
console.log(`${burst} identified connections at once: ${ms(burstMs)} in all`);
