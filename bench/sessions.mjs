// Background sessions: listing 1,000 saved sessions, a detached host's start, attaching to a 50 MB journal,
// and an idle host's memory once its kernel has been snapshotted and exited.
import { execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { SessionClient } from "../dist/host/client.js";
import { byTask, startScriptedModel } from "../dist/scripted/index.js";
import { Journal, newSessionId, sessionDir } from "../dist/session/index.js";
import { measure, median, ROOT, scriptedEnv, table } from "./lib.mjs";

const relm = join(ROOT, "dist/cli/relm.cjs");
const SESSIONS = Number(process.env.RELM_BENCH_SESSIONS ?? 1000);

const model = await startScriptedModel({
  script: byTask({ "BENCH: idle": [{ code: "x = 1" }, { text: "done" }], "BENCH: noop": [{ text: "ok" }] }),
});
const { home, env } = scriptedEnv(model, "relm-bench-sessions-");
writeFileSync(join(home, "config.json"), JSON.stringify({ kernelIdleTimeoutSeconds: 1 }));
const run = (args) => promisify(execFile)(process.execPath, [relm, ...args], { env, encoding: "utf8" });

function fakeSession(events, outputBytes = 200) {
  const id = newSessionId();
  const journal = Journal.create(sessionDir(home, id), {
    id,
    created: new Date().toISOString(),
    cwd: home,
    title: `synthetic session ${id}`,
    provider: "openai",
    model: "bench",
    relm: "bench",
  });
  journal.append({ type: "system_prompt", text: "You are relm." });
  journal.append({ type: "user", text: "synthetic" });
  const output = "y".repeat(outputBytes);
  for (let i = 0; i < events; i++) {
    journal.append({ type: "cell", turn: i, callId: `c${i}`, code: `print(${i})` });
    journal.append({
      type: "cell_output",
      turn: i,
      callId: `c${i}`,
      executionCount: i + 1,
      status: "ok",
      output,
      outputChars: output.length,
      truncated: false,
      imageFiles: [],
      durationMs: 1,
    });
  }
  journal.append({ type: "final", text: "done", spent: { turns: 1, tokens: 10, elapsedMs: 1, cost: 0 } });
  journal.close();
  return id;
}

try {
  // 1. relm agents with 1,000 saved sessions. CPU time (user+sys, from /usr/bin/time) is the figure to
  // compare: on a loaded 2-core machine wall time mostly measures the wait for a core.
  for (let i = 0; i < SESSIONS; i++) fakeSession(5);
  measure(process.execPath, [relm, "agents"], env); // the first listing describes each session and logs it
  // Interleaved, so that a change in the machine's load falls on every command alike.
  const listing = [];
  const everyRow = [];
  const bare = [];
  for (let i = 0; i < 15; i++) {
    listing.push(measure(process.execPath, [relm, "agents"], env, ROOT, { poll: false }));
    everyRow.push(measure(process.execPath, [relm, "agents", "--all"], env, ROOT, { poll: false }));
    bare.push(measure(process.execPath, ["-e", "0"], env, ROOT, { poll: false }));
  }
  const ratio = median(listing.map((r) => r.cpu_ms)) / median(bare.map((r) => r.cpu_ms));
  const ratioAll = median(everyRow.map((r) => r.cpu_ms)) / median(bare.map((r) => r.cpu_ms));
  console.log(
    `# relm agents, ${SESSIONS} saved sessions (median of 15, interleaved; load average ${loadavg()[0].toFixed(1)})`,
  );
  table(
    [
      ["relm agents (live ones and the 20 newest)", listing],
      ["relm agents --all (every row)", everyRow],
      ["node -e 0 (for scale)", bare],
    ].map(([command, runs]) => ({
      command,
      "CPU ms": median(runs.map((r) => r.cpu_ms)).toFixed(0),
      "wall ms": median(runs.map((r) => r.wall_ms)).toFixed(0),
      "peak RSS MB": (median(runs.map((r) => r.max_rss_kb)) / 1024).toFixed(0),
    })),
  );
  console.log(
    `CPU ratio to node -e 0: ${ratio.toFixed(2)}x, --all ${ratioAll.toFixed(2)}x (goal: within 1.3x)\n`,
  );

  // 2. A detached host: start to socket accepting, and the whole `relm run --detach` command.
  const accept = [];
  for (let i = 0; i < 5; i++) {
    const id = newSessionId();
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [relm, "run", "--as-host", id, "--idle-timeout", "1", "BENCH: noop"],
      {
        env,
        stdio: "ignore",
        detached: true,
      },
    );
    const path = join(home, "run", `${id}.sock`);
    for (;;) {
      const ok = await new Promise((resolve) => {
        const socket = connect(path);
        socket.once("connect", () => {
          socket.destroy();
          resolve(true);
        });
        socket.once("error", () => resolve(false));
      });
      if (ok) break;
      await new Promise((r) => setTimeout(r, 1));
    }
    accept.push(performance.now() - t0);
    // Let it finish before the next one, so hosts do not compete for the two cores.
    await new Promise((r) => {
      child.once("exit", r);
      child.kill("SIGTERM");
    });
  }
  const detachRuns = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await run(["run", "--detach", "--idle-timeout", "1", "BENCH: noop"]);
    detachRuns.push(performance.now() - t0);
  }
  console.log("# detached host (median of 5)");
  table([
    { measure: "process start to socket accepting", ms: median(accept).toFixed(0) },
    { measure: "`relm run --detach` until the session answers", ms: median(detachRuns).toFixed(0) },
  ]);
  console.log("goal: socket accepting under 150 ms\n");

  // 3. Attach to a session with a 50 MB journal.
  const big = fakeSession(120_000, 200);
  const bigPath = join(sessionDir(home, big), "journal.jsonl");
  const size = statSync(bigPath).size;
  await run(["run", "--detach", "--resume", big, "--idle-timeout", "60"]);
  const client = await SessionClient.connect(home, big);
  let first;
  let events = 0;
  const t0 = performance.now();
  client.onNotification((n) => {
    if (n.method !== "event") return;
    first ??= performance.now() - t0;
    events++;
  });
  const { lastN } = await client.call("attach", { after: 0 });
  const full = performance.now() - t0;
  client.close();
  const again = await SessionClient.connect(home, big);
  let missed = 0;
  again.onNotification((n) => {
    if (n.method === "event") missed++;
  });
  const t1 = performance.now();
  await again.call("attach", { after: lastN - 10 });
  const tail = performance.now() - t1;
  let live;
  const t2 = performance.now();
  again.onNotification((n) => {
    if (n.method === "event") live ??= performance.now() - t2;
  });
  // A message is journaled (and published) the moment the host receives it.
  await again.call("message", { from: "bench", text: "ping" }).catch(() => undefined);
  while (live === undefined) await new Promise((r) => setTimeout(r, 5));
  again.close();
  await run(["stop", big]).catch(() => undefined);
  console.log(`# attach to a ${(size / 1e6).toFixed(1)} MB journal (${lastN} events)`);
  table([
    { attach: "from event 0: first event", ms: first.toFixed(0), "bytes read": size.toLocaleString("en-US") },
    {
      attach: "from event 0: whole history",
      ms: full.toFixed(0),
      "bytes read": size.toLocaleString("en-US"),
    },
    {
      attach: `re-attach after ${lastN - 10}: ${missed} missing events`,
      ms: tail.toFixed(1),
      "bytes read": "only those events",
    },
    { attach: "then: first live event after a send", ms: live.toFixed(0), "bytes read": "-" },
  ]);
  console.log(`(${events} events replayed)\n`);

  // 4. An idle session's memory once its kernel has been snapshotted and exited (kernelIdleTimeoutSeconds:
  // 1): the host hands its socket to a stub (src/host/handoff.ts) and exits. Then what a client pays for
  // that: the first `status` through the stub waits for the host to start again.
  const { stdout } = await run(["run", "--detach", "--idle-timeout", "60", "BENCH: idle"]);
  const idle = stdout.trim();
  const holder = () => JSON.parse(readFileSync(join(sessionDir(home, idle), "state.json"), "utf8")).pid;
  const cmdline = (pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      return "";
    }
  };
  for (let end = Date.now() + 60_000; Date.now() < end && !cmdline(holder()).includes("stub.js"); )
    await new Promise((r) => setTimeout(r, 100));
  const pid = holder();
  const kind = cmdline(pid).includes("stub.js") ? "stub (host handed over)" : "host";
  const rssOf = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
  // A process just started is still loading: measured once its RSS has held still for a second.
  let rss = rssOf();
  for (let still = 0; still < 5; ) {
    await new Promise((r) => setTimeout(r, 200));
    const now = rssOf();
    still = Math.abs(now - rss) < 0.2 ? still + 1 : 0;
    rss = now;
  }
  const pss = Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))[1]) / 1024;
  const kernels = readdirSync("/proc").filter((p) => {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, "utf8");
      return (
        cmd.includes("relm.runner") &&
        readFileSync(`/proc/${p}/environ`, "utf8").includes(`RELM_HOME=${home}\0`)
      );
    } catch {
      return false;
    }
  });
  const asked = performance.now();
  const waking = await SessionClient.connect(home, idle);
  await waking.call("status");
  const wake = performance.now() - asked;
  waking.close();
  console.log("# idle session, kernel snapshotted and exited");
  table([
    {
      process: kind,
      "RSS MB": rss.toFixed(1),
      "PSS MB": pss.toFixed(1),
      "kernels still running": kernels.length,
      "first status after, ms": wake.toFixed(0),
    },
  ]);
  console.log("goal: under 60 MB");
  await run(["shutdown"]);
} finally {
  await model.close();
  rmSync(home, { recursive: true, force: true });
}
