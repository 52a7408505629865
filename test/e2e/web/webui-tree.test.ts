import { expect, it } from "vitest";
import { describeInBrowser } from "../../support/browser.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { detach, webRig } from "../../support/web-rig.js";

const startRig = useRigs();
const CHILDREN = 200;

describeInBrowser(`the tree of 200`, (browser) => {
  it("200 sub-agents render and update; only the rows in sight are in the page", async () => {
    const script = byTask({
      "FAN: out": [
        { code: `r = rlm.map("LEAF: answer", list(range(${CHILDREN})), max_parallel=25)\nprint(len(r))` },
        echoLastCell,
      ],
      "LEAF: answer": [{ text: "leaf done" }],
    });
    const w = await webRig(browser(), startRig, script);
    const { rig, page } = w;
    try {
      const id = await detach(rig, ["FAN: out"]);
      await w.openSession(id);
      const summary = page.locator(".tree > summary");
      // Some are running while the page follows them.
      await summary.waitFor({ timeout: 120_000 });
      const box = page.locator(".tree-box");
      await expect
        .poll(async () => (await summary.textContent()) ?? "", { timeout: 300_000, interval: 500 })
        .toContain(`sub-agents: ${CHILDREN}, 0 running`);
      expect(await box.getAttribute("data-rows")).toBe(String(CHILDREN));
      // Virtualised: a screenful of rows, not 200.
      const drawn = await page.locator(".tree-row").count();
      expect(drawn).toBeGreaterThan(5);
      expect(drawn).toBeLessThan(40);
      expect(await page.locator('.tree-row .status:text-is("done")').count()).toBe(drawn);
      // Scrolled to the end, the last rows are drawn (and the first are not).
      const first = await page.locator(".tree-row").first().getAttribute("data-agent");
      await box.evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      await expect.poll(() => page.locator(`.tree-row[data-agent="${first}"]`).count()).toBe(0);
      const bottom = await page
        .locator(".tree-row")
        .evaluateAll((rows) =>
          Math.max(...rows.map((r) => Number.parseInt((r as HTMLElement).style.top, 10))),
        );
      expect(bottom).toBe((CHILDREN - 1) * 28);
      await page.locator(".item.cell .output", { hasText: String(CHILDREN) }).waitFor({ timeout: 60_000 });
    } finally {
      await w.done();
    }
  }, 420_000);
});
