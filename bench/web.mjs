// relm web (issue 25), in Debian's chromium through playwright-core (skipped, saying so, without
// /usr/bin/chromium), against the real `relm web`:
//  1. page ready with 1,000 saved sessions: from the navigation's start to the sessions table drawn with
//     all of them (data-rows=1000 and its first rows in the page, then the frame that shows them), timed
//     in the page itself (an init script's MutationObserver and requestAnimationFrame, not the driver's
//     polling). Warm: a reload of a server that has listed the sessions once. Cold: `relm web` started
//     afresh, then a new browser context opens its printed address (token, redirect, page, first listing).
//  2. the server's RSS with the page open, against a bare node.
//  3. a 1,000-node tree updating every 100 ms: the session page of a session whose live host (the
//     hosts' own socket server, bench/web-tree-host.mjs) fans out 1,000 sub-agents and then has a hundred
//     of them say something every 100 ms; frame intervals from requestAnimationFrame while the tree box
//     scrolls, and long animation frames (PerformanceObserver), first with no events (the machine's
//     floor), then with them.
//  4. the same measure on a real fan-out (bench/web-real-tree.mjs: rlm.map over 1,000 with real
//     children and kernels, 25 at once), once its tree holds 600.
// RELM_BENCH_WEB_BASE=<a checkout with its own dist/ built>: rounds of 1 and 2 alternate between that
// build and this one (each its own `relm web` over the same sessions), so both meet the same load; 3
// runs this build, the base, this build, the base; 4 this build, then the base.
// RELM_BENCH_WEB_PAGE=0 leaves out 1 and 2, RELM_BENCH_WEB_TREE=0 3, RELM_BENCH_WEB_REAL=0 4.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Journal, newSessionId, sessionDir } from "../dist/session/index.js";
import { median, quantile, ROOT } from "./lib.mjs";
import { startRealFanOut } from "./web-real-tree.mjs";
import { startTreeHost } from "./web-tree-host.mjs";

const CHROMIUM = "/usr/bin/chromium";
if (!existsSync(CHROMIUM)) {
  console.log(`skipped: no ${CHROMIUM} (apt-get install chromium)`);
  process.exit(0);
}
const SESSIONS = Number(process.env.RELM_BENCH_SESSIONS ?? 1000);
const NODES = Number(process.env.RELM_BENCH_NODES ?? 1000);
const BASE = process.env.RELM_BENCH_WEB_BASE;
const WARM = Number(process.env.RELM_BENCH_WEB_WARM ?? 12);
const COLD = Number(process.env.RELM_BENCH_WEB_COLD ?? 5);
const REAL = Number(process.env.RELM_BENCH_WEB_REAL ?? 1000);
const REAL_PARALLEL = Number(process.env.RELM_BENCH_WEB_REAL_PARALLEL ?? 25);
const TOKEN = "bench-web-token-0123456789abcdefghijkl";
const home = mkdtempSync(join(tmpdir(), "relm-bench-web-"));
const treeHome = mkdtempSync(join(tmpdir(), "relm-bench-web-tree-"));
const { chromium } = await import("playwright-core");
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
});
/** The servers started, ended if the bench fails half-way. */
const running = new Set();
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

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

/** `relm web` of the build at `root` on `relmHome`: its process, address, and when it was spawned. */
function startWeb(root, relmHome = home) {
  const spawned = Date.now();
  const child = spawn(process.execPath, [join(root, "dist/cli/relm.cjs"), "web", "--port", "0"], {
    env: { ...process.env, RELM_HOME: relmHome, RELM_WEB_TOKEN: TOKEN },
    stdio: ["ignore", "pipe", "ignore"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const url = /http:\/\/\S+\?token=\S+/.exec(out)?.[0];
      if (url) resolve({ child, url, spawned, printed: Date.now() });
    });
    child.on("exit", () => reject(new Error(`relm web exited: ${out}`)));
    running.add(child);
    child.on("exit", () => running.delete(child));
  });
}

async function stopWeb(web) {
  const exited = new Promise((r) => web.child.once("exit", r));
  web.child.kill("SIGTERM");
  await exited;
}

/**
 * In every page: the time (from navigation start) the table holds every session and its first rows
 * (`__rows`), and the start of the next frame, once those rows are drawn (`__ready`).
 */
const MARK_READY = (n) => {
  const seen = () => document.querySelector(`table.sessions[data-rows="${n}"] tbody tr[data-id]`);
  const observer = new MutationObserver(() => {
    if (window.__rows !== undefined || !seen()) return;
    window.__rows = performance.now();
    observer.disconnect();
    requestAnimationFrame(() => requestAnimationFrame((t) => (window.__ready = t)));
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true });
};

async function readyIn(page) {
  await page.waitForFunction(() => window.__ready !== undefined, null, { timeout: 60_000 });
  return page.evaluate(() => ({
    rows: window.__rows,
    ready: window.__ready,
    origin: performance.timeOrigin,
    html: performance.getEntriesByType("navigation")[0]?.responseEnd ?? Number.NaN,
  }));
}

/** A browser context with the page-ready marks, signed in to `web` (the token swapped for its cookie). */
async function signedIn(web) {
  const context = await browser.newContext();
  await context.addInitScript(MARK_READY, SESSIONS);
  const page = await context.newPage();
  await page.goto(web.url);
  await readyIn(page);
  return { context, page };
}

async function pageReady() {
  for (let i = 0; i < SESSIONS; i++) fakeSession(i);
  // A home's listing index (index/states.jsonl) is written by its hosts as they run; these sessions had
  // none, so one listing writes it before anything is timed (the first would read every journal's tail).
  execFileSync(process.execPath, [join(ROOT, "dist/cli/relm.cjs"), "agents", "--json"], {
    env: { ...process.env, RELM_HOME: home },
    stdio: "ignore",
  });
  const builds = [
    { name: "this build", root: ROOT },
    ...(BASE ? [{ name: `base (${BASE})`, root: BASE }] : []),
  ];
  for (const b of builds)
    Object.assign(b, {
      warm: [],
      cold: [],
      printed: [],
      toNavigation: [],
      toHtml: [],
      afterHtml: [],
      loads: [],
    });
  // Cold first (fresh servers, fresh contexts), alternating builds round by round.
  for (let round = 0; round < COLD; round++)
    for (const b of round % 2 ? [...builds].reverse() : builds) {
      const web = await startWeb(b.root);
      const context = await browser.newContext();
      await context.addInitScript(MARK_READY, SESSIONS);
      const page = await context.newPage();
      await page.goto(web.url);
      const { ready, origin, html } = await readyIn(page);
      b.cold.push(origin + ready - web.spawned);
      b.toNavigation.push(origin - web.printed);
      b.toHtml.push(html);
      b.afterHtml.push(ready - html);
      b.printed.push(web.printed - web.spawned);
      b.loads.push(loadavg()[0]);
      await context.close();
      await stopWeb(web);
    }
  // Warm: each build's server and signed-in page kept; reloads alternate between them.
  for (const b of builds) {
    b.web = await startWeb(b.root);
    Object.assign(b, await signedIn(b.web));
  }
  for (let round = 0; round < WARM; round++)
    for (const b of round % 2 ? [...builds].reverse() : builds) {
      await b.page.goto(`${new URL(b.web.url).origin}/?round=${round}`);
      b.warm.push((await readyIn(b.page)).ready);
      b.loads.push(loadavg()[0]);
    }
  const bare = await bareNodeRss();
  for (const b of builds) {
    b.rss = rssMb(b.web.child.pid);
    await b.context.close();
    await stopWeb(b.web);
  }
  return { builds, bare };
}

/** A bare node process's RSS, for what the server adds. */
async function bareNodeRss() {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 500));
  const rss = rssMb(child.pid);
  child.kill();
  return rss;
}

/** Frame intervals for `ms` while the tree box scrolls, and the long animation frames among them. */
function frames(page, ms) {
  return page.evaluate(async (ms) => {
    const long = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) long.push(e.duration);
    });
    observer.observe({ type: "long-animation-frame", buffered: false });
    const deltas = [];
    const box = document.querySelector(".tree-box");
    let last = performance.now();
    const end = last + ms;
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
    observer.disconnect();
    return { deltas: deltas.slice(1), long, rows: document.querySelectorAll(".tree-row").length };
  }, ms);
}

async function treeFrames(root) {
  const host = await startTreeHost(treeHome, NODES);
  const web = await startWeb(root, treeHome);
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(web.url);
    // The machine's floor: the frames of the sessions page (one session, nothing changing), just before.
    const floor = await page.evaluate(async () => {
      const deltas = [];
      let last = performance.now();
      const end = last + 5000;
      await new Promise((resolve) => {
        const frame = (t) => {
          deltas.push(t - last);
          last = t;
          if (t < end) requestAnimationFrame(frame);
          else resolve();
        };
        requestAnimationFrame(frame);
      });
      return deltas.slice(1);
    });
    await page.goto(`${new URL(web.url).origin}/#/s/${host.id}`);
    await page.waitForFunction(
      (n) => document.querySelector(".tree > summary")?.textContent?.includes(`sub-agents: ${n}`),
      NODES,
      { timeout: 120_000 },
    );
    const before = host.published();
    const t0 = Date.now();
    const live = await frames(page, 10_000);
    const rate = ((host.published() - before) * 1000) / (Date.now() - t0);
    await context.close();
    return { floor, live, rate };
  } finally {
    await stopWeb(web);
    await host.close();
  }
}

/** The session page of a real fan-out (web-real-tree.mjs), measured once its tree holds 60% of it. */
async function realTreeFrames(root) {
  const run = await startRealFanOut(REAL, REAL_PARALLEL);
  const web = await startWeb(root, run.home);
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(web.url);
    await page.goto(`${new URL(web.url).origin}/#/s/${run.id}`);
    const summary = () => page.evaluate(() => document.querySelector(".tree > summary")?.textContent ?? "");
    await page.waitForFunction(
      (n) =>
        Number(/sub-agents: (\d+)/.exec(document.querySelector(".tree > summary")?.textContent ?? "")?.[1]) >=
        n,
      Math.ceil(REAL * 0.6),
      { timeout: 600_000, polling: 500 },
    );
    const from = await summary();
    const live = await frames(page, 10_000);
    const to = await summary();
    await context.close();
    return { live, from, to };
  } finally {
    await stopWeb(web);
    await run.close();
  }
}

const fmt = (x) => x.toFixed(1);
function frameLine(d, long) {
  const missed = d.filter((x) => x > 16.7 * 1.5).length;
  return `frames ${d.length}: interval p50 ${fmt(quantile(d, 0.5))} ms, p95 ${fmt(quantile(d, 0.95))}, p99 ${fmt(quantile(d, 0.99))}, max ${fmt(Math.max(...d))}; missed (> 25 ms) ${missed}${long ? `; long animation frames (> 50 ms) ${long.length}${long.length ? `, longest ${fmt(Math.max(...long))} ms` : ""}` : ""}`;
}

try {
  if (process.env.RELM_BENCH_WEB_PAGE !== "0") {
    console.log(`# relm web, ${SESSIONS} saved sessions (load average at start ${load()})`);
    const { builds, bare } = await pageReady();
    const says = (xs) =>
      `median ${median(xs).toFixed(0)} ms of ${xs.length} (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
    for (const b of builds) {
      console.log(`## ${b.name} (load average during its rounds: median ${median(b.loads).toFixed(1)})`);
      console.log(
        `page ready, warm (navigation → every row listed and drawn): ${says(b.warm)}; target ≤ 300`,
      );
      console.log(`page ready, cold (spawn of relm web → its page drawn in a new context): ${says(b.cold)}`);
      console.log(`  of which relm web's start (spawn → address printed): ${says(b.printed)}`);
      console.log(`  then the driver's new context (address printed → navigation): ${says(b.toNavigation)}`);
      console.log(`  then the browser's navigation (token, redirect, the HTML): ${says(b.toHtml)}`);
      console.log(`  then the page (script, style, first listing, rows drawn): ${says(b.afterHtml)}`);
      console.log(
        `server RSS with the page open: ${fmt(b.rss)} MB; a bare node ${fmt(bare)} MB; added ${fmt(b.rss - bare)} MB (target ≤ 30)`,
      );
    }
  }
  if (process.env.RELM_BENCH_WEB_TREE !== "0") {
    // With a base build: this one, the base, this one, the base (each its own host, server and page).
    const order = BASE ? [ROOT, BASE, ROOT, BASE] : [ROOT];
    for (const root of order) {
      const { floor, live, rate } = await treeFrames(root);
      const name = root === ROOT ? "this build" : `base (${BASE})`;
      console.log(
        `# ${name}: a ${NODES}-node tree, a live host's events every 100 ms, 10 s scrolling (load ${load()})`,
      );
      console.log(`an empty page (the machine's floor), ${frameLine(floor)}`);
      console.log(
        `the tree, ${rate.toFixed(0)} events/s, ${frameLine(live.deltas, live.long)}; rows in the page: ${live.rows}`,
      );
    }
  }
  if (process.env.RELM_BENCH_WEB_REAL !== "0")
    for (const root of BASE ? [ROOT, BASE] : [ROOT]) {
      const { live, from, to } = await realTreeFrames(root);
      const name = root === ROOT ? "this build" : `base (${BASE})`;
      console.log(
        `# ${name}: a real rlm.map over ${REAL} (${REAL_PARALLEL} at once, each child its own kernel), 10 s scrolling (load ${load()})`,
      );
      console.log(`${frameLine(live.deltas, live.long)}; the tree: "${from}" → "${to}"`);
    }
} finally {
  for (const child of running) child.kill("SIGTERM");
  await browser.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(treeHome, { recursive: true, force: true });
}
