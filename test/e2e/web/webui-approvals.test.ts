// relm web answers approvals: a detached session (--approve ask) whose cell calls request('run', ...)
// waits with nobody attached; the sessions page says "needs approval", the session's page shows the
// request with the four answers, and the answer given there unblocks the cell, journaled as from the web.
// Real chromium, real bubblewrap (workspace mode), real kernels, the scripted model over HTTP.
import { existsSync } from "node:fs";
import { expect, it } from "vitest";
import { describeInBrowser, noBrowser } from "../../support/browser.js";
import { readJournalLines } from "../../support/journal.js";
import { echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";
import { detach, screenshot, webRig } from "../../support/web-rig.js";

const startRig = useRigs();
const bwrap = process.platform === "linux" && existsSync("/usr/bin/bwrap");
const skip = noBrowser ?? (bwrap ? undefined : "no bubblewrap");

const RUN_CELL = [
  "try:",
  '    r = request("run", "list the files the host sees", cmd="echo ran-outside")',
  "    print('GRANTED', r.output.strip())",
  "except request.Denied as e:",
  "    print('DENIED', e)",
].join("\n");

// The command hides its end behind a right-to-left override (it reads "echo ok # sh.evil" on screen
// unescaped) and the reason carries a zero-width space: the page shows each as a visible escape.
const BIDI_CELL = [
  "try:",
  '    request("run", "tidy\\u200bup", cmd="echo ok \\u202e# hs.live\\u202c\\u2066x\\u2069")',
  "except request.Denied as e:",
  "    print('DENIED', e)",
].join("\n");

describeInBrowser(
  `approvals in relm web`,
  (browser) => {
    it("a waiting request is shown on both pages and answered from the page; the session goes on", async () => {
      const w = await webRig(browser(), startRig, [{ code: RUN_CELL }, echoLastCell]);
      const { rig, web, page } = w;
      try {
        const id = await detach(rig, ["--mode", "workspace", "--approve", "ask", "go"]);
        await page.goto(web.url);
        const row = page.locator(`tr[data-id="${id}"]`);
        await row
          .locator(".status.needs-approval", { hasText: "needs approval" })
          .waitFor({ timeout: 90_000 });

        await screenshot(page, "web-sessions-approval");
        await row.locator("a").click();
        const request = page.locator(".approval");
        await request.waitFor({ timeout: 30_000 });
        expect(await request.locator(".subject").textContent()).toBe("echo ran-outside");
        const text = (await request.textContent()) ?? "";
        expect(text).toContain("Approval needed · run");
        expect(text).toContain("run this command outside the sandbox");
        expect(text).toContain("Reason given: list the files the host sees");
        expect(await request.locator("button").allInnerTexts()).toEqual([
          "allow once",
          "allow for this session",
          "always for this project",
          "deny",
        ]);
        // The journal's request is in the transcript too.
        await page.locator(".item.notice", { hasText: "asks to run: echo ran-outside" }).waitFor();
        await screenshot(page, "web-approval");

        await request.getByRole("button", { name: "allow once" }).click();
        await page
          .locator(".item.cell .output", { hasText: "GRANTED ran-outside" })
          .waitFor({ timeout: 60_000 });
        await page.locator(".item.notice", { hasText: "allowed once by web" }).waitFor({ timeout: 30_000 });
        await expect.poll(() => page.locator(".approval").count(), { timeout: 30_000 }).toBe(0);

        const lines = await until(() => {
          const l = readJournalLines(rig.home, id);
          return l.some((e) => e.type === "final") ? l : undefined;
        }, 60_000);
        expect(lines.find((l) => l.type === "approval_answer")).toMatchObject({
          allow: true,
          by: "web",
          scope: "once",
        });
        // Back on the list, nothing waits any more.
        await page.goto(`${web.base}/#/`);
        await expect.poll(() => row.locator(".status.needs-approval").count(), { timeout: 30_000 }).toBe(0);
        // A request no longer waiting cannot be answered again.
        const again = await page.request.post(`${web.base}/api/sessions/${id}/approve`, {
          data: { request: String(lines.find((l) => l.type === "approval_request")?.id), answer: "once" },
        });
        expect([409]).toContain(again.status());
      } finally {
        await w.done();
      }
    }, 240_000);

    it("shows the request's bidi and other invisible characters as visible escapes", async () => {
      const w = await webRig(browser(), startRig, [{ code: BIDI_CELL }, echoLastCell]);
      const { rig, page } = w;
      try {
        const id = await detach(rig, ["--mode", "workspace", "--approve", "ask", "go"]);
        await w.openSession(id);
        const request = page.locator(".approval");
        await request.waitFor({ timeout: 90_000 });
        const subject = "echo ok \\u202e# hs.live\\u202c\\u2066x\\u2069";
        expect(await request.locator(".subject").textContent()).toBe(subject);
        expect(await request.locator(".reason").textContent()).toBe("Reason given: tidy\\u200bup");
        const notice = page.locator(".item.notice", { hasText: "asks to run:" });
        await notice.waitFor();
        expect(await notice.textContent()).toContain(`asks to run: ${subject} (tidy\\u200bup)`);
        await request.getByRole("button", { name: "deny" }).click();
        await page.locator(".item.cell .output", { hasText: "DENIED" }).waitFor({ timeout: 60_000 });
      } finally {
        await w.done();
      }
    }, 240_000);
  },
  skip,
);
