// relm web's sessions page with a thousand saved sessions: the table is virtualised (a screenful of rows
// in the page, not a thousand), scrolling to the end draws the oldest session in its place, and the
// filter still searches every session. Real chromium against the real `relm web`.
import { join } from "node:path";
import { expect, it } from "vitest";
import { Journal, newSessionId, sessionDir } from "../../../src/session/index.js";
import { describeInBrowser, startWeb } from "../../support/browser.js";
import { tempDir } from "../../support/cli.js";

const SESSIONS = 1000;

describeInBrowser(`the sessions page with ${SESSIONS} sessions`, (browser) => {
  it("draws a screenful of rows, the oldest at the end once scrolled there, and filters them all", async () => {
    const home = tempDir();
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const id = newSessionId();
      ids.push(id);
      // Session i is i minutes old: the newest first, the oldest last.
      const at = new Date(Date.now() - i * 60_000).toISOString();
      const journal = Journal.create(sessionDir(home.path, id), {
        id,
        created: at,
        cwd: join("/home/you", `project-${i % 37}`),
        // "#": no id holds it, so "#500" finds one title (a random id can hold "500").
        title: `saved session #${i}`,
        provider: "openai",
        model: "scripted",
        relm: "test",
      });
      // Events stamped at that time too (a later key overrides the journal's own stamp), for its activity.
      const stamped = { t: at };
      journal.append({ ...stamped, type: "user", text: `task ${i}` });
      journal.append({
        ...stamped,
        type: "final",
        text: "done",
        spent: { turns: 1, tokens: 10, elapsedMs: 1, cost: 0 },
      });
      journal.close();
    }
    const web = await startWeb({
      ...process.env,
      RELM_HOME: home.path,
      RELM_WEB_TOKEN: "many-token-0123456789abcdefghijkl",
    });
    const context = await browser().newContext({ viewport: { width: 1100, height: 700 } });
    context.setDefaultTimeout(60_000);
    const page = await context.newPage();
    try {
      await page.goto(web.url);
      const table = page.locator("table.sessions");
      await expect.poll(() => table.getAttribute("data-rows"), { timeout: 60_000 }).toBe(String(SESSIONS));
      await expect(page.locator("header.bar .muted").textContent()).resolves.toContain(
        `${SESSIONS} sessions`,
      );
      const rows = page.locator("tbody tr[data-id]");
      const drawn = await rows.count();
      expect(drawn).toBeGreaterThan(10);
      expect(drawn).toBeLessThan(60);
      expect(await rows.first().getAttribute("data-id")).toBe(ids[0]);
      // The table keeps its full height, so the window scrolls to the end and the oldest is drawn there.
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      const oldest = page.locator(`tr[data-id="${ids[SESSIONS - 1]}"]`);
      await oldest.waitFor({ timeout: 30_000 });
      await expect.poll(() => page.locator(`tr[data-id="${ids[0]}"]`).count()).toBe(0);
      const box = await oldest.boundingBox();
      expect(box && box.y + box.height).toBeLessThanOrEqual(700 + 1);
      expect(await oldest.textContent()).toContain(`saved session #${SESSIONS - 1}`);
      // The filter searches all of them, not the rows drawn.
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.locator("input.filter").fill("session #500");
      await expect.poll(() => table.getAttribute("data-rows")).toBe("1");
      expect(await rows.getAttribute("data-id")).toBe(ids[500]);
    } finally {
      await context.close();
      await web.stop();
      home.cleanup();
    }
  }, 180_000);
});
