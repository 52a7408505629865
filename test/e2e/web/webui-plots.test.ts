import { expect, it } from "vitest";
import { describeInBrowser } from "../../support/browser.js";
import { useRigs } from "../../support/scripted.js";
import { detach, screenshot, webRig } from "../../support/web-rig.js";

const startRig = useRigs();

describeInBrowser(`plots in relm web`, (browser) => {
  it("tokens, cost and cell durations are drawn with a point per model call and a bar per cell", async () => {
    const w = await webRig(browser(), startRig, [
      { code: "x = 1" },
      { code: "import time\ntime.sleep(0.3)\nprint('slept')" },
      { text: "all done" },
    ]);
    const { rig, page } = w;
    try {
      const id = await detach(rig, ["plot me"]);
      await w.openSession(id);
      await page.locator(".item.answer", { hasText: "all done" }).waitFor({ timeout: 60_000 });
      await page.locator(".charts > summary").click();
      expect(await page.locator(".charts > summary").textContent()).toContain("plots: 3 model calls");
      for (const chart of ["tokens", "cost"]) {
        const lines = page.locator(`[data-chart="${chart}"] polyline`);
        for (const points of await lines.evaluateAll((ls) => ls.map((l) => l.getAttribute("points") ?? "")))
          expect(points.trim().split(/\s+/)).toHaveLength(3);
      }
      expect(await page.locator('[data-chart="tokens"] polyline').count()).toBe(2);
      expect(await page.locator('[data-chart="cells"] rect').count()).toBe(2);
      expect(await page.locator('[data-chart="cells"] figcaption').textContent()).toContain("2 cells");
      // The second cell slept: its bar is the taller.
      const heights = await page
        .locator('[data-chart="cells"] rect')
        .evaluateAll((rs) => rs.map((r) => Number(r.getAttribute("height"))));
      expect(heights[1]).toBeGreaterThan(heights[0] as number);
      await screenshot(page, "web-plots");
    } finally {
      await w.done();
    }
  }, 180_000);
});
