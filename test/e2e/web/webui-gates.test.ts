// relm web's strip of gate runs over an autonomous run: a detached session whose gates fail twice (no
// file, then the wrong content) and then pass shows three marks, two failed and one passed, in the
// journal's order, each naming its commands. Real chromium, real gates, the scripted model over HTTP.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { describeInBrowser } from "../../support/browser.js";
import { byTask } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";
import { detach, screenshot, status, webRig } from "../../support/web-rig.js";

const startRig = useRigs();

describeInBrowser(`gates over an autonomous run`, (browser) => {
  it("a mark a gate run: failed, failed, passed, as the journal says", async () => {
    const script = byTask({
      "TASK: write result.txt": [
        { text: "All done!" },
        { code: "open('result.txt', 'w').write('41')" },
        { text: "Fixed, I think." },
        { code: "open('result.txt', 'w').write('42')" },
        { text: "Now it is really done." },
      ],
    });
    const w = await webRig(browser(), startRig, script);
    const { rig, page } = w;
    try {
      const id = await detach(rig, [
        "--autonomous",
        "--gate",
        "test -f result.txt",
        "--gate",
        "grep -q 42 result.txt",
        "TASK: write result.txt",
      ]);
      const journal = () =>
        readFileSync(join(rig.home, "sessions", id, "journal.jsonl"), "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { type: string; passed?: boolean });
      await until(() => journal().find((e) => e.type === "autonomy_end"), 120_000);
      const runs = journal().filter((e) => e.type === "gate_run");
      expect(runs.map((r) => r.passed)).toEqual([false, false, true]);
      await until(async () => ((await status(rig, id)) === "idle" ? true : undefined), 60_000);

      await w.openSession(id);
      const summary = page.locator(".charts > summary");
      await expect.poll(() => summary.textContent(), { timeout: 30_000 }).toContain("3 gate runs (1 passed)");
      await summary.click();
      const strip = page.locator('[data-chart="gates"]');
      await expect(strip.locator("figcaption").textContent()).resolves.toContain(
        "3 runs, 2 failed, the last passed",
      );
      const marks = strip.locator("rect.gate");
      expect(await marks.count()).toBe(3);
      expect(await strip.locator("rect.gate.fail").count()).toBe(2);
      expect(await strip.locator("rect.gate.pass").count()).toBe(1);
      const classes = await marks.evaluateAll((rs) => rs.map((r) => r.getAttribute("class")));
      expect(classes).toEqual(["gate fail", "gate fail", "gate pass"]);
      const titles = await strip.locator("rect.gate title").allTextContents();
      // The first run: no file, the second gate not run after it; the second: the file, the wrong text.
      expect(titles[0]).toContain("✗ test -f result.txt");
      expect(titles[0]).toContain("1 not run after the failure");
      expect(titles[1]).toContain("✓ test -f result.txt");
      expect(titles[1]).toContain("✗ grep -q 42 result.txt (exit 1)");
      expect(titles[2]).toContain("✓ grep -q 42 result.txt");
      await screenshot(page, "web-gates");
    } finally {
      await w.done();
    }
  }, 240_000);
});
