// relm web (issue 25): the sessions page ready with 1,000 sessions, the frames of a 1,000-node tree
// updating every 100 ms, and the memory the server adds. In Debian's chromium through playwright-core
// (skipped, saying so, without /usr/bin/chromium). Page-ready and RSS are against the real `relm web`
// over 1,000 saved sessions; the tree is fed by a stand-in server that serves the built page and pushes
// the events a 1,000-child fan-out would (the real server can only replay a journal that big, not make
// it change ten times a second), so the frame figures are the page's own.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Journal, newSessionId, sessionDir } from "../dist/session/index.js";
import { median, quantile, ROOT } from "./lib.mjs";

const CHROMIUM = "/usr/bin/chromium";
if (!existsSync(CHROMIUM)) {
  console.log(`skipped: no ${CHROMIUM} (apt-get install chromium)`);
  process.exit(0);
}
const SESSIONS = Number(process.env.RELM_BENCH_SESSIONS ?? 1000);
const NODES = Number(process.env.RELM_BENCH_NODES ?? 1000);
const BASELINE = process.env.RELM_BENCH_WEB_BASELINE;
const TOKEN = "bench-web-token-0123456789abcdefghijkl";
const relm = join(ROOT, "dist/cli/relm.cjs");
const home = mkdtempSync(join(tmpdir(), "relm-bench-web-"));
const { chromium } = await import("playwright-core");
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
});

const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
};

function fakeSession(i) {
  const id = newSessionId();
  const journal = Journal.create(sessionDir(home, id), {
    id,
    created: new Date(Date.now() - i * 60_000).toISOString(),
    cwd: `/home/you/project-${i % 37}`,
    title: `synthetic session ${i}`,
    provider: "openai",
    model: "bench",
    relm: "bench",
  });
  journal.append({ type: "user", text: `task ${i}` });
  journal.append({ type: "final", text: "done", spent: { turns: 1, tokens: 10 + i, elapsedMs: 1, cost: 0 } });
  journal.close();
}

/** `relm web` on the bench's home; resolves with its process and address once it printed it. */
function startWeb() {
  const child = spawn(process.execPath, [relm, "web", "--port", "0"], {
    env: { ...process.env, RELM_HOME: home, RELM_WEB_TOKEN: TOKEN },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const url = /http:\/\/\S+\?token=\S+/.exec(out)?.[0];
      if (url) resolve({ child, url });
    });
    child.on("exit", () => reject(new Error(`relm web exited: ${out}`)));
  });
}

/** A bare node process's RSS, for what the server adds. */
async function bareNodeRss() {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 500));
  const rss = rssMb(child.pid);
  child.kill();
  return rss;
}

async function pageReady() {
  for (let i = 0; i < SESSIONS; i++) fakeSession(i);
  const { child, url } = await startWeb();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url); // trades the token for the cookie
    const base = new URL(url).origin;
    const ready = [];
    const baseline = [];
    // With RELM_BENCH_WEB_BASELINE=<a built app's directory>, rounds alternate between that app and this
    // one (the server reads its files at each request), so both meet the same load.
    const appDir = join(ROOT, "dist/webui/app");
    const files = ["index.html", "app.js", "app.css"];
    const mine = files.map((f) => readFileSync(join(appDir, f)));
    const other = BASELINE ? files.map((f) => readFileSync(join(BASELINE, f))) : undefined;
    const rounds = other ? 14 : 7;
    try {
      for (let round = 0; round < rounds; round++) {
        const old = other !== undefined && round % 2 === 1;
        for (const [i, f] of files.entries()) writeFileSync(join(appDir, f), (old ? other : mine)[i]);
        // A fresh load; the page notes the time the list of every session is in it and its first rows
        // drawn (from navigation start). An app that draws every row draws them in that same render.
        await page.goto(`${base}/?round=${round}`);
        await page.waitForFunction(
          (n) => {
            const said = document.querySelector("header.bar .muted")?.textContent ?? "";
            if (!said.startsWith(`${n} sessions`) || !document.querySelector("tbody tr[data-id]"))
              return false;
            window.__ready ??= performance.now();
            return true;
          },
          SESSIONS,
          { polling: "raf", timeout: 60_000 },
        );
        (old ? baseline : ready).push(await page.evaluate(() => window.__ready));
      }
    } finally {
      for (const [i, f] of files.entries()) writeFileSync(join(appDir, f), mine[i]);
    }
    const idle = rssMb(child.pid);
    const bare = await bareNodeRss();
    await context.close();
    return { ready, baseline, server: idle, bare };
  } finally {
    child.kill("SIGTERM");
  }
}

/** A stand-in server: the built page, an empty sessions list, and a session whose tree changes. */
async function treeFrames() {
  const app = join(ROOT, "dist/webui/app");
  const id = "benchtree";
  const kids = Array.from({ length: NODES }, (_, i) => `k${i.toString(36).padStart(4, "0")}`);
  const streams = new Set();
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    const files = {
      "/": ["index.html", "text/html"],
      "/app.js": ["app.js", "text/javascript"],
      "/app.css": ["app.css", "text/css"],
    };
    const file = files[path];
    if (file) return res.writeHead(200, { "content-type": file[1] }).end(readFileSync(join(app, file[0])));
    if (path === "/api/sessions/stream") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      return res.write("event: sessions\ndata: []\n\n");
    }
    if (path === `/api/sessions/${id}/approvals`) return res.end('{"pending":[]}');
    if (path !== `/api/sessions/${id}/events`) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/event-stream" });
    let n = 0;
    const send = (e) => res.write(`data: ${JSON.stringify(e)}\n\n`);
    send({ n: ++n, type: "user", text: "fan out" });
    // A tree: ten at the top, the rest under them and under each other.
    kids.forEach((k, i) => {
      const parent = i < 10 ? undefined : kids[Math.floor((i - 10) / 10)];
      send({
        ...(parent ? { agent: parent } : { n: ++n }),
        type: "child_spawned",
        id: k,
        name: k,
        task: `item ${i}: do a thing`,
        model: "bench",
        variables: [],
      });
    });
    streams.add(res);
    req.on("close", () => streams.delete(res));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const port = server.address().port;
  // Every 100 ms, a hundred agents say what they are doing (and some finish).
  let tick = 0;
  const timer = setInterval(() => {
    tick++;
    for (const res of streams)
      for (let j = 0; j < 100; j++) {
        const k = kids[(tick * 100 + j) % NODES];
        const type = j % 2 ? "model_request" : "cell";
        res.write(
          `data: ${JSON.stringify({ agent: k, type, turn: tick, messages: 1, callId: "c", code: "x" })}\n\n`,
        );
      }
  }, 100);
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/#/s/${id}`);
    await page.waitForFunction(
      (n) => document.querySelector(".tree > summary")?.textContent?.includes(`sub-agents: ${n}`),
      NODES,
      { timeout: 60_000 },
    );
    const result = await page.evaluate(async () => {
      const longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) longTasks.push(e.duration);
      }).observe({ type: "longtask", buffered: false });
      const deltas = [];
      let last = performance.now();
      const end = last + 10_000;
      const box = document.querySelector(".tree-box");
      await new Promise((resolve) => {
        const frame = (t) => {
          deltas.push(t - last);
          last = t;
          // Scroll as a person would, so new rows come into sight too.
          if (box) box.scrollTop = (box.scrollTop + 7) % box.scrollHeight;
          if (t < end) requestAnimationFrame(frame);
          else resolve();
        };
        requestAnimationFrame(frame);
      });
      return { deltas, longTasks, rows: document.querySelectorAll(".tree-row").length };
    });
    await page.close();
    return result;
  } finally {
    clearInterval(timer);
    for (const res of streams) res.end();
    server.close();
    server.closeAllConnections();
  }
}

try {
  const { ready, baseline, server, bare } = await pageReady();
  const says = (xs) =>
    `median of ${xs.length}: ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)}; target ≤ 300)`;
  console.log(`# relm web, ${SESSIONS} saved sessions (load average ${loadavg()[0].toFixed(1)})`);
  console.log(`page ready (navigation → the list in the page, its first rows drawn), ${says(ready)}`);
  if (baseline.length) console.log(`  the baseline app (${BASELINE}), interleaved: ${says(baseline)}`);
  console.log(
    `server RSS with the page open: ${server.toFixed(1)} MB; a bare node: ${bare.toFixed(1)} MB; added ${(server - bare).toFixed(1)} MB (target ≤ 30)`,
  );
  // The tree's frames do not depend on the sessions page: not measured again beside a baseline.
  if (!baseline.length) {
    const { deltas, longTasks, rows } = await treeFrames();
    const d = deltas.slice(1);
    console.log(`# a ${NODES}-node tree, 100 agents' events every 100 ms, 10 s scrolling`);
    console.log(
      `frames: ${d.length}; interval p50 ${quantile(d, 0.5).toFixed(1)} ms, p95 ${quantile(d, 0.95).toFixed(1)} ms, p99 ${quantile(d, 0.99).toFixed(1)} ms, max ${Math.max(...d).toFixed(1)} ms; over 16.7 ms: ${d.filter((x) => x > 16.7 * 1.5).length} missed frames; long tasks (> 50 ms): ${longTasks.length}; rows in the page: ${rows}`,
    );
  }
} finally {
  await browser.close();
  rmSync(home, { recursive: true, force: true });
}
