// relm web in a real browser (chromium through playwright-core) against detached sessions run with the
// scripted model over HTTP: the sessions list follows the sessions live, a message sent from the page
// reaches its session, a dropped connection replays without duplicates, a hostile answer runs nothing,
// and a wrong token (or another site's page) is refused.

import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import type { StepFunction } from "../../../src/scripted/script.js";
import { describeInBrowser, startWeb } from "../../support/browser.js";
import { runRelm } from "../../support/cli.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { pythonWaitForFile, until } from "../../support/wait.js";
import { screenshot, status, webRig } from "../../support/web-rig.js";

const startRig = useRigs();
const SECRET = "sk-proj-web-page-secret-0123456789abcdef";

const HOSTILE = [
  'Look: <script>window.__pwned = "script"</script> and <img src=x onerror="window.__pwned = \'img\'">.',
  "",
  "[click me](javascript:window.__pwned='link') and [data](data:text/html,<script>alert(1)</script>)",
  "",
  '<svg onload="window.__pwned = \'svg\'"><script>window.__pwned = "svg-script"</script></svg>',
  "",
  "<a href=\"javascript:window.__pwned='a'\">raw link</a> ![pic](javascript:window.__pwned='imgmd')",
  "",
  "<iframe src=\"javascript:window.__pwned='iframe'\"></iframe>",
  "",
  "<math><mtext><table><mglyph><style><img src=x onerror=\"window.__pwned='mxss'\">",
  "",
  "A **safe** [link](https://example.org/) stays. It grew ~5%-~8%, and ~~this~~ is struck.",
].join("\n");

/** Answers what the person said last: a hostile answer, one repeating a secret, or an echo. */
function answer(ctx: ScriptContext): ScriptStep {
  const said = ctx.lastUserText ?? "";
  if (said.includes("HOSTILE")) return { text: HOSTILE };
  if (said.includes("SECRET")) return { text: `The key is ${SECRET}, do not tell.` };
  const words = /say (\S+)/.exec(said)?.[1] ?? "nothing";
  return { text: `echo ${words}` };
}

async function detach(rig: Rig, task: string): Promise<string> {
  const result = await runRelm(["run", "--detach", task], { env: rig.env, cwd: rig.cwd });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

async function texts(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).allInnerTexts();
}

describe("relm web on the command line", () => {
  it("a bad port, a port in use and a bad token are told plainly; another address says how to tunnel", async () => {
    const rig = await startRig("openai", { script: answer });
    const bad = await runRelm(["web", "--port", "http"], { env: rig.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--port http: a port is a whole number from 0 to 65535");
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    // The usual flags start the server's own bundle (src/cli/web-entry.ts); anything else still goes
    // through the command-line parser, which explains it.
    const help = await runRelm(["web", "--help"], { env: rig.env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: relm web");
    for (const flag of ["--port <n>", "--host <addr>", "--open"]) expect(help.stdout).toContain(flag);
    const typo = await runRelm(["web", "--prot", "0"], { env: rig.env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("--prot");
    expect(typo.stderr).not.toMatch(/\n\s+at /);
    const badEq = await runRelm(["web", "--port=http"], { env: rig.env });
    expect(badEq.code).toBe(2);
    expect(badEq.stderr).toContain("--port http: a port is a whole number");
    const short = await runRelm(["web", "--port", "0"], { env: { ...rig.env, RELM_WEB_TOKEN: "short" } });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("RELM_WEB_TOKEN must be at least 24");

    const web = await startWeb(rig.env, ["--port", "0", "--host", "0.0.0.0"]);
    try {
      // Written to stderr after the address on stdout: the two pipes may arrive in either order.
      await expect.poll(() => web.stderr()).toContain(`ssh -N -L ${web.port}:127.0.0.1:${web.port}`);
      // Listening beyond loopback, the token is still asked for.
      const local = `http://127.0.0.1:${web.port}`;
      expect((await fetch(`${local}/api/sessions`)).status).toBe(403);
      expect(
        (await fetch(`${local}/api/sessions`, { headers: { authorization: `token ${web.token}` } })).status,
      ).toBe(200);
      const taken = await runRelm(["web", "--port", String(web.port)], { env: rig.env });
      expect(taken.code).toBe(1);
      // One `relm: ` line, not "relm: relm web: ...".
      expect(taken.stderr).toMatch(
        new RegExp(`^relm: port ${web.port} is in use; choose another with --port N`),
      );
      const nowhere = await runRelm(["web", "--port", "0", "--host", "192.0.2.1"], { env: rig.env });
      expect(nowhere.code).toBe(1);
      expect(nowhere.stderr).toMatch(
        /^relm: --host 192\.0\.2\.1 is not an address of this machine; .*127\.0\.0\.1/,
      );
    } finally {
      await web.stop();
    }
    expect(web.process.exitCode).toBe(0);
  }, 120_000);
});

describeInBrowser(`relm web in a browser`, (browser) => {
  /** A rig, a web server on it and a browser context signed in with the token (test/support/web-rig.ts). */
  const setUp = (script: StepFunction = answer) =>
    webRig(browser(), startRig, script, { RELM_API_KEY: SECRET });

  it("the sessions list follows sessions as they start and finish; the filter narrows it", async () => {
    const { rig, web, page, context, done } = await setUp();
    try {
      await page.goto(web.url);
      // The token was swapped for a cookie the page's scripts cannot read, and left the address.
      expect(new URL(page.url()).search).toBe("");
      const [cookie] = await context.cookies();
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
      await page.getByText("no sessions yet").waitFor({ timeout: 30_000 });

      const id = await detach(rig, "first task: say apples");
      const row = page.locator(`tr[data-id="${id}"]`);
      const rowText = async () => (await row.textContent()) ?? "";
      await row.waitFor({ timeout: 30_000 });
      await expect.poll(() => rowText(), { timeout: 60_000 }).toMatch(/idle|done/);
      expect(await rowText()).toContain("first task");
      expect(await rowText()).toContain("scripted");
      // One session is counted as one, not "1 sessions".
      await expect
        .poll(() => page.locator("header .muted").first().textContent(), { timeout: 30_000 })
        .toMatch(/^1 session,/);

      const other = await detach(rig, "second task: say pears");
      await page.locator(`tr[data-id="${other}"]`).waitFor({ timeout: 30_000 });
      // Newest activity first.
      await expect
        .poll(() => page.locator("tbody tr[data-id]").first().getAttribute("data-id"), { timeout: 30_000 })
        .toBe(other);
      await screenshot(page, "web-sessions");
      await page.locator("input.filter").fill("apples");
      await expect.poll(() => page.locator("tbody tr[data-id]").count()).toBe(1);
      expect(await page.locator("tbody tr[data-id]").getAttribute("data-id")).toBe(id);
    } finally {
      await done();
    }
  }, 180_000);

  it("a session link followed right after the first paint opens the session, not the list", async () => {
    const { web, page, done } = await setUp();
    try {
      // The hash changes in the same task as the app's first render, before its effects run (preact runs
      // them after the next frame): a person clicking at once, or a test going to `#/s/ID` on load.
      await page.addInitScript(() => {
        if (sessionStorage.getItem("relm-test-hash")) return;
        sessionStorage.setItem("relm-test-hash", "1");
        new MutationObserver((_, observer) => {
          if (!document.querySelector("#app > *")) return;
          observer.disconnect();
          window.location.hash = "#/s/abcdef12";
        }).observe(document, { childList: true, subtree: true });
      });
      await page.goto(web.url);
      await page.locator("main.session").waitFor({ timeout: 30_000 });
      expect(await page.locator("main.session").textContent()).toContain("abcdef12");
      expect(await page.locator("table.sessions").count()).toBe(0);
    } finally {
      await done();
    }
  }, 120_000);

  it("a message sent from the page reaches the session; a dropped connection replays without duplicates", async () => {
    const { rig, web, page, done } = await setUp();
    let server = web;
    try {
      const id = await detach(rig, "task: say one");
      await until(async () => ((await status(rig, id)) === "idle" ? true : undefined), 60_000);
      await page.goto(web.url);
      await page.goto(`${web.base}/#/s/${id}`);
      await page.locator(".item.answer", { hasText: "echo one" }).waitFor({ timeout: 30_000 });

      await page.locator('textarea[name="message"]').fill("please say two");
      await page.getByRole("button", { name: "Send" }).click();
      await page.locator(".item.answer", { hasText: "echo two" }).waitFor({ timeout: 60_000 });
      expect(rig.bodies().some((b) => b.includes("please say two"))).toBe(true);

      // The server goes away with the page open; the session goes on without it.
      await server.kill();
      await page.locator('[data-connection="reconnecting"]').waitFor({ timeout: 30_000 });
      await until(async () => ((await status(rig, id)) === "idle" ? true : undefined), 60_000);
      const sent = await runRelm(["send", id, "then say three"], { env: rig.env });
      expect(sent.code, sent.stderr).toBe(0);
      await until(() => (rig.bodies().some((b) => b.includes("then say three")) ? true : undefined), 60_000);
      await until(async () => ((await status(rig, id)) === "idle" ? true : undefined), 60_000);

      // Back on the same port with the same token: the page's cookie still holds, it reconnects by
      // itself, and gets what it missed, once.
      server = await startWeb(rig.env, ["--port", String(web.port)]);
      await page.locator(".item.answer", { hasText: "echo three" }).waitFor({ timeout: 60_000 });
      await page.locator('[data-connection="open"]').first().waitFor({ timeout: 30_000 });
      const users = await texts(page, ".item.user .text");
      const answers = await texts(page, ".item.answer");
      expect(users.filter((t) => t.includes("say one"))).toHaveLength(1);
      expect(users.filter((t) => t.includes("please say two"))).toHaveLength(1);
      expect(users.filter((t) => t.includes("then say three"))).toHaveLength(1);
      expect(answers.map((t) => t.trim())).toEqual(["echo one", "echo two", "echo three"]);
      await screenshot(page, "web-session");
    } finally {
      await server.stop();
      await done();
    }
  }, 240_000);

  it("a hostile answer renders inert, and no secret reaches the page", async () => {
    const { rig, web, page, done } = await setUp();
    try {
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      const id = await detach(rig, "HOSTILE: show me");
      await page.goto(web.url);
      await page.goto(`${web.base}/#/s/${id}`);
      const md = page.locator(".item.answer .md", { hasText: "stays" });
      await md.waitFor({ timeout: 60_000 });
      // Every link the page kept is clicked: none may run anything.
      for (const link of await md.locator("a").all())
        await link.click({ modifiers: ["Control"] }).catch(() => {});
      const found = await page.evaluate(() => {
        const root = document.querySelector(".item.answer .md") as HTMLElement;
        const all = Array.from(root.querySelectorAll("*"));
        return {
          pwned: (window as { __pwned?: unknown }).__pwned,
          tags: [...new Set(all.map((e) => e.localName))].sort(),
          handlers: all
            .flatMap((e) => Array.from(e.attributes).map((a) => a.name))
            .filter((n) => n.startsWith("on")),
          hrefs: Array.from(root.querySelectorAll("a")).map((a) => a.getAttribute("href")),
          text: root.textContent ?? "",
          struck: Array.from(root.querySelectorAll("del")).map((d) => d.textContent),
        };
      });
      // Only ~~text~~ strikes through, as in the terminal UI: not "5%-" of "~5%-~8%".
      expect(found.struck).toEqual(["this"]);
      expect(found.pwned).toBeUndefined();
      expect(dialogs).toEqual([]);
      expect(found.handlers).toEqual([]);
      for (const tag of ["script", "svg", "iframe", "img", "math", "style"])
        expect(found.tags).not.toContain(tag);
      // The javascript: and data: links lost their address; the https one kept it.
      expect(found.hrefs.filter((h) => h !== null)).toEqual(["https://example.org/"]);
      expect(found.hrefs.length).toBeGreaterThan(1);
      // The hostile markup is there to read, as text.
      expect(found.text).toContain('<script>window.__pwned = "script"</script>');

      // The session's key, repeated in an answer, is redacted before it reaches the page.
      await until(async () => ((await status(rig, id)) === "idle" ? true : undefined), 60_000);
      await page.locator('textarea[name="message"]').fill("SECRET: what is the key?");
      await page.getByRole("button", { name: "Send" }).click();
      await page.locator(".item.answer", { hasText: "do not tell" }).waitFor({ timeout: 60_000 });
      expect(await page.content()).not.toContain(SECRET);
      const raw = await page.evaluate(async (path) => {
        const res = await fetch(path);
        const reader = res.body?.getReader();
        let text = "";
        const decoder = new TextDecoder();
        while (reader && !text.includes("do not tell")) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value);
        }
        await reader?.cancel();
        return text;
      }, `/api/sessions/${id}/events`);
      expect(raw).toContain("do not tell");
      expect(raw).not.toContain(SECRET);
      expect(JSON.stringify(await (await page.request.get(`${web.base}/api/sessions`)).json())).not.toContain(
        SECRET,
      );
    } finally {
      await done();
    }
  }, 180_000);

  it("the tree of sub-agents: live, nested, searchable, foldable", async () => {
    const release = join(tmpdir(), `relm-web-tree-${process.pid}-${Date.now()}`);
    const tree = byTask({
      "TREE: fan out": [
        { code: 'a = rlm("CHILD one: go deeper")\nb = rlm("CHILD two: quick")\nprint(a, b)' },
        echoLastCell,
      ],
      "CHILD one": [{ code: 'print(rlm("GRANDCHILD: wait"))' }, echoLastCell],
      "CHILD two": [{ text: "two done" }],
      GRANDCHILD: [{ code: `${pythonWaitForFile(release)}\nprint("waited")` }, echoLastCell],
    });
    const { rig, web, page, done } = await setUp(tree);
    try {
      const id = await detach(rig, "TREE: fan out");
      await page.goto(web.url);
      await page.goto(`${web.base}/#/s/${id}`);
      // The grandchild, still running, sits under the child that started it.
      const row = (task: string) => page.locator(`.tree-row:has(> .label[title*="${task}"])`);
      const grand = row("GRANDCHILD");
      const one = row("CHILD one");
      await grand.waitFor({ timeout: 60_000 });
      const oneId = await one.getAttribute("data-agent");
      expect(await grand.getAttribute("data-parent")).toBe(oneId);
      expect(await grand.getAttribute("data-depth")).toBe("1");
      expect(await grand.locator(".status").textContent()).toBe("running");
      await screenshot(page, "web-tree");

      writeFileSync(release, "");
      const two = row("CHILD two");
      await expect.poll(async () => two.locator(".status").textContent(), { timeout: 60_000 }).toBe("done");
      await expect.poll(() => grand.locator(".status").textContent(), { timeout: 60_000 }).toBe("done");
      expect(await one.locator(".status").textContent()).toBe("done");
      expect(await page.locator(".tree > summary").textContent()).toContain("sub-agents: 3, 0 running");
      // A subtree's line sums what is below it.
      expect(await one.textContent()).toContain("1 below");

      // Folding a subtree hides it; the search keeps what matches.
      await one.locator("button.fold").click();
      await expect.poll(() => grand.count()).toBe(0);
      await page.locator(".tree input.filter").fill("quick");
      await expect.poll(() => page.locator(".tree-row").count()).toBe(1);
      await page.locator(".tree input.filter").fill("");

      // A node opens that sub-agent's own transcript (its journal), with the sub-agent it started.
      await one.locator(".label").click();
      expect(page.url()).toContain(`/a/${oneId}`);
      await page.locator(".item.user", { hasText: "CHILD one: go deeper" }).waitFor({ timeout: 30_000 });
      await page.locator(".item.cell .output", { hasText: "waited" }).waitFor({ timeout: 30_000 });
      await page.locator('.tree-row:has(> .label[title*="GRANDCHILD"])').waitFor({ timeout: 30_000 });
      expect(await page.locator(".item.user").count()).toBe(1);
      // Where its kernel runs, from its journal (this one is local).
      await page.locator(".kernel-where", { hasText: "kernel: local" }).waitFor({ timeout: 30_000 });
      await screenshot(page, "web-child");
      // And the grandchild's, found at its depth.
      await page.locator('.tree-row > .label[title*="GRANDCHILD"]').click();
      await page.locator(".item.user", { hasText: "GRANDCHILD: wait" }).waitFor({ timeout: 30_000 });
      expect((await page.request.get(`${web.base}/api/sessions/${id}/agents/zzzz/events`)).status()).toBe(
        404,
      );
    } finally {
      rmSync(release, { force: true });
      await done();
    }
  }, 240_000);

  it("a wrong token, no token, another host name or another site's page is refused", async () => {
    const { web, page, context, done } = await setUp();
    try {
      const wrong = await page.goto(`${web.base}/?token=not-the-token`);
      expect(wrong?.status()).toBe(403);
      expect(await page.locator("body").textContent()).toContain("wrong token");
      expect(await context.cookies()).toEqual([]);
      for (const path of ["/", "/app.js", "/api/sessions", "/api/sessions/stream"])
        expect((await fetch(`${web.base}${path}`)).status, path).toBe(403);

      const auth = { authorization: `token ${web.token}` };
      expect((await fetch(`${web.base}/api/sessions`, { headers: auth })).status).toBe(200);
      expect(
        (await fetch(`${web.base}/api/sessions`, { headers: { authorization: "token nope" } })).status,
      ).toBe(403);
      // A page of another site (or one that rebinds its own name to 127.0.0.1) is refused, token or not.
      const { request } = await import("node:http");
      const raw = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const req = request(`${web.base}/api/sessions`, { headers: { ...auth, ...headers } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on("error", reject);
          req.end();
        });
      expect(await raw({ host: `evil.example:${web.port}` })).toBe(403);
      expect(await raw({ origin: "http://evil.example" })).toBe(403);
      expect(await raw({ origin: web.base })).toBe(200);
      // Served paths are the app's and the API's: nothing else, however it is spelled.
      for (const path of ["/../../etc/passwd", "/index.html", "/api/sessions/zzz/outputs/..%2Fjournal.jsonl"])
        expect((await fetch(`${web.base}${path}`, { headers: auth })).status, path).toBe(404);
    } finally {
      await done();
    }
  }, 120_000);
});
