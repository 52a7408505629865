// relm web: the plot of one subtree of the sub-agent tree. A session starts two children; the first
// starts a grandchild. The plot of the first child's subtree has exactly the model calls of that child
// and its grandchild (read from their journals), none of its sibling's; the whole tree's has them all.
// Real chromium, real kernels, the scripted model over HTTP.
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { describeInBrowser } from "../../support/browser.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { detach, screenshot, webRig } from "../../support/web-rig.js";

const startRig = useRigs();

/** The polylines' point counts of the plot shown, and the agents it names. */
async function plotted(page: Page): Promise<{ calls: string; agents: string[]; points: number[] }> {
  const plot = page.locator(".subtree-plot");
  const points = await plot
    .locator('[data-chart="tokens"] polyline')
    .evaluateAll((ls) => ls.map((l) => (l.getAttribute("points") ?? "").trim().split(/\s+/).length));
  return {
    calls: (await plot.getAttribute("data-calls")) ?? "",
    agents: ((await plot.getAttribute("data-agents")) ?? "").split(" ").filter(Boolean).sort(),
    points,
  };
}

describeInBrowser(`plots per subtree`, (browser) => {
  it("a child's subtree plot shows its and its grandchild's model calls, not its sibling's", async () => {
    // Model calls: root 2, CHILD A 2, GRAND 1, CHILD B 4.
    const script = byTask({
      "ROOT: two children": [
        { code: 'a = rlm("CHILD A: go deeper")\nb = rlm("CHILD B: count")\nprint(a, b)' },
        echoLastCell,
      ],
      "CHILD A": [{ code: 'print(rlm("GRAND: answer"))' }, echoLastCell],
      GRAND: [{ text: "grand done" }],
      "CHILD B": [{ code: "x = 1" }, { code: "y = 2" }, { code: "print(x + y)" }, echoLastCell],
    });
    const w = await webRig(browser(), startRig, script);
    const { rig, page } = w;
    try {
      const id = await detach(rig, ["ROOT: two children"]);
      await w.openSession(id);
      await page.locator(".item.answer", { hasText: "grand done" }).waitFor({ timeout: 120_000 });
      await expect
        .poll(async () => (await page.locator(".tree > summary").textContent()) ?? "", { timeout: 60_000 })
        .toContain("sub-agents: 3, 0 running");
      const row = (task: string) => page.locator(`.tree-row:has(> .label[title^="${task}"])`);
      const a = (await row("CHILD A").getAttribute("data-agent")) as string;
      const b = (await row("CHILD B").getAttribute("data-agent")) as string;
      const grand = (await row("GRAND").getAttribute("data-agent")) as string;

      await row("CHILD A").locator("button.plot-subtree").click();
      await expect.poll(async () => (await plotted(page)).calls, { timeout: 30_000 }).toBe("3");
      expect(await plotted(page)).toEqual({ calls: "3", agents: [a, grand].sort(), points: [3, 3] });
      expect(await page.locator(".subtree-plot").textContent()).toContain(
        "3 model calls by 2 of its 2 agents",
      );
      await page.locator(".tree").evaluate((el) => el.scrollIntoView());
      await screenshot(page, "web-subtree");

      await row("CHILD B").locator("button.plot-subtree").click();
      await expect.poll(async () => (await plotted(page)).calls, { timeout: 30_000 }).toBe("4");
      expect(await plotted(page)).toEqual({ calls: "4", agents: [b], points: [4, 4] });

      await page.locator("button.plot-tree").click();
      await expect.poll(async () => (await plotted(page)).calls, { timeout: 30_000 }).toBe("9");
      expect((await plotted(page)).agents).toEqual([id, a, b, grand].sort());
      await page.locator(".subtree-plot button.close-plot").click();
      expect(await page.locator(".subtree-plot").count()).toBe(0);
      // A sub-agent that is not in the session's tree is not found.
      expect((await page.request.get(`${w.web.base}/api/sessions/${id}/agents/zzzz/usage`)).status()).toBe(
        404,
      );
    } finally {
      await w.done();
    }
  }, 240_000);
});
