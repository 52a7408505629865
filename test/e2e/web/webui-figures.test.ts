// One session's figures read the same in the web page as in line mode: its cost (cents from a dollar,
// four decimals below) and each cell's time (formatDuration's "305 ms", "1.2 s", "1m5s").
import { expect, it } from "vitest";
import { describeInBrowser } from "../../support/browser.js";
import { runRelm } from "../../support/cli.js";
import { useRigs } from "../../support/scripted.js";
import { webRig } from "../../support/web-rig.js";

const startRig = useRigs();

describeInBrowser("figures in relm web", (browser) => {
  it("shows the cost and the cells' times as line mode printed them for the same session", async () => {
    // Prices that make a few hundred tokens cost a fraction of a cent.
    const config = { prices: { scripted: { input: 3.7, output: 11.3 } } };
    const w = await webRig(
      browser(),
      startRig,
      [{ code: "import time\ntime.sleep(0.2)\nprint('slept')" }, { text: "all done" }],
      {},
      config,
    );
    const { rig, page } = w;
    try {
      const run = await runRelm(["run", "figures"], { env: rig.env, cwd: rig.cwd });
      expect(run.code, run.stderr).toBe(0);
      // Line mode's cell line ("  ✓ 213 ms") and the line that ends the run ("✓ 2 model calls, …, $0.0021").
      const cellTime = /^ {2}✓ (.+)$/m.exec(run.stderr)?.[1];
      const spendCost = /^✓ \d+ model calls?, [\d,]+ tokens, [^,]+, (\S+)$/m.exec(run.stderr)?.[1];
      expect(cellTime, run.stderr).toBeDefined();
      expect(spendCost, run.stderr).toMatch(/^\$0\.\d{4}$/);

      const listed = (await runRelm(["agents", "--json"], { env: rig.env })).stdout.trim().split("\n");
      expect(listed).toHaveLength(1);
      await w.openSession((JSON.parse(listed[0] ?? "{}") as { id: string }).id);
      const cell = page.locator(".item.cell .muted.small");
      await cell.waitFor({ timeout: 60_000 });
      expect(await cell.textContent()).toBe(`ok · ${cellTime}`);
      const header = page.locator(".muted", { hasText: " tokens · " }).first();
      await header.waitFor({ timeout: 60_000 });
      expect(await header.textContent()).toMatch(new RegExp(` tokens · ${spendCost?.replace("$", "\\$")}$`));
    } finally {
      await w.done();
    }
  }, 180_000);
});
