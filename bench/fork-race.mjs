// Thousands of kernels forked from one warm template, to show that none waits for a ready message it
// already sent (a forked kernel answers on the fork server's socket, the template reports the fork on
// its stdout, and nothing orders the two: about 1 fork in 660 once stalled for the 60 s ready timeout).
// Two phases: forks as they come, then forks with the template's report held back at random (nothing,
// 0-20 ms, or until some kernel has said something), which makes every order of the two happen.
// The in-process test test/kernel/fork-race.test.ts is the small version.
// Run after `npm run build`:   node bench/fork-race.mjs [forks per phase=5000] [parallel=4]
import os from "node:os";
import { performance } from "node:perf_hooks";
import { scrubEnvironment } from "../dist/kernel/env.js";
import { forkRunner } from "../dist/kernel/fork-link.js";
import { findPython, startKernelTemplate } from "../dist/kernel/index.js";
import { median, quantile, table } from "./lib.mjs";

const FORKS = Number(process.argv[2] ?? 5000);
const PARALLEL = Number(process.argv[3] ?? 4);
/** A ready this late is a kernel that waited (the ready timeout used to be the only way out). */
const STALL_MS = 5_000;
const READY_TIMEOUT_MS = 20_000;

const python = await findPython(process.env);
const env = scrubEnvironment(process.env);

/** Holds back the template's stdout (its fork reports) while any hold is on. */
function gate(template) {
  const stdout = template.child.stdout;
  let holds = 0;
  return () => {
    if (holds++ === 0) stdout.pause();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--holds === 0) stdout.resume();
    };
  };
}

/** Counts protocol bytes from forked kernels as they reach the host. */
function protocolBytes(template) {
  const server = template.server;
  const expect = server.expect.bind(server);
  let bytes = 0;
  server.expect = (token, handler) =>
    expect(token, (channel, socket, head) => {
      handler(channel, socket, head);
      if (channel !== "protocol") return;
      bytes += head.length;
      socket.on("data", (text) => {
        bytes += text.length;
      });
    });
  return () => bytes;
}

async function phase(name, jitter) {
  const template = await startKernelTemplate({ python });
  const hold = gate(template);
  const bytes = protocolBytes(template);
  const ready = [];
  const failed = [];
  const ending = new Set();
  let started = 0;
  const worker = async () => {
    while (started < FORKS) {
      started++;
      const mode = jitter ? Math.random() : 0;
      const release = mode < 0.3 ? () => {} : hold();
      if (mode >= 0.3 && mode < 0.8) setTimeout(release, Math.random() * 20);
      const before = bytes();
      const t0 = performance.now();
      const pending = forkRunner(template, {
        python: python.path,
        cwd: os.tmpdir(),
        env,
        firstCount: 1,
        readyTimeoutMs: READY_TIMEOUT_MS,
        onStream: () => {},
        onRequest: () => {},
      });
      if (mode >= 0.8) {
        const until = Date.now() + 200;
        const look = () => (bytes() > before || Date.now() > until ? release() : setTimeout(look, 1));
        look();
      }
      try {
        const runner = await pending;
        ready.push(performance.now() - t0);
        runner.kill();
        const done = runner.exited.then(() => ending.delete(done));
        ending.add(done);
        if (ending.size > 8) await Promise.race(ending);
      } catch (e) {
        failed.push(e.message);
      } finally {
        release();
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  await Promise.all(ending);
  const wall = (performance.now() - t0) / 1000;
  await template.close();
  return {
    phase: name,
    forks: FORKS,
    "wall s": wall.toFixed(1),
    "forks/s": (FORKS / wall).toFixed(1),
    "ready p50": `${median(ready).toFixed(1)} ms`,
    "ready p99": `${quantile(ready, 0.99).toFixed(1)} ms`,
    "ready max": `${Math.max(...ready).toFixed(0)} ms`,
    [`waited > ${STALL_MS / 1000} s`]: ready.filter((t) => t > STALL_MS).length,
    failed: failed.length,
  };
}

console.log(`${FORKS} forks per phase, ${PARALLEL} at a time, ${os.cpus().length} cores`);
const rows = [await phase("as they come", false), await phase("report held back at random", true)];
table(rows);
if (rows.some((r) => r.failed > 0)) process.exitCode = 1;
