// relm web: a sub-agent's page shows its running cell's output as it is printed, not only once the cell
// ends (a child's journal has its cell and, at the end, the whole output; what is printed meanwhile
// comes from the session's host, and what was printed before the page opened too). The child's cell waits until the page follows the host, prints a line,
// then waits for a file the test creates only once the page shows that line. Real chromium, real
// kernels, the scripted model over HTTP.
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { describeInBrowser } from "../../support/browser.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { pythonWaitForFile, until } from "../../support/wait.js";
import { detach, screenshot, webRig } from "../../support/web-rig.js";

const startRig = useRigs();

describeInBrowser(`a sub-agent's page, live`, (browser) => {
  it("the child's running cell streams its output to the child's page before the cell ends", async () => {
    const start = join(tmpdir(), `relm-web-child-start-${process.pid}-${Date.now()}`);
    const release = join(tmpdir(), `relm-web-child-live-${process.pid}-${Date.now()}`);
    const script = byTask({
      "PARENT: start one": [{ code: 'print(rlm("SLOW CHILD: print and wait"))' }, echoLastCell],
      "SLOW CHILD": [
        {
          code: `${pythonWaitForFile(start)}\nprint("first line, before the wait", flush=True)\n${pythonWaitForFile(release)}\nprint("second line, after the release")`,
        },
        echoLastCell,
      ],
    });
    const w = await webRig(browser(), startRig, script);
    const { rig, page } = w;
    try {
      const id = await detach(rig, ["PARENT: start one"]);
      await w.openChild(id, "SLOW CHILD");
      await page
        .locator(".item.user", { hasText: "SLOW CHILD: print and wait" })
        .waitFor({ timeout: 30_000 });
      // This cell prints once the page follows the host (the next test opens a page after it printed).
      await page.locator(".path", { hasText: "host connected" }).waitFor({ timeout: 60_000 });
      writeFileSync(start, "");
      // The cell still runs (it waits for the file, which does not exist yet), and its first line is shown.
      const cell = page.locator(".item.cell");
      await cell.locator(".output", { hasText: "first line, before the wait" }).waitFor({ timeout: 60_000 });
      expect(await cell.getAttribute("class")).toContain("running");
      expect(await cell.locator(".output").textContent()).not.toContain("second line");
      await screenshot(page, "web-child-live");

      writeFileSync(release, "");
      await cell
        .locator(".output", { hasText: "second line, after the release" })
        .waitFor({ timeout: 60_000 });
      await expect.poll(() => cell.getAttribute("class"), { timeout: 30_000 }).toContain("ok");
      // Streamed, then the journal's whole output: each line once.
      const output = (await cell.locator(".output").textContent()) ?? "";
      expect(output.match(/first line/g)).toHaveLength(1);
      expect(await page.locator(".item.cell").count()).toBe(1);
    } finally {
      rmSync(start, { force: true });
      rmSync(release, { force: true });
      await w.done();
    }
  }, 240_000);

  it("a child's page opened mid-cell shows what the cell printed before the page came, once", async () => {
    const printed = join(tmpdir(), `relm-web-child-printed-${process.pid}-${Date.now()}`);
    const release = join(tmpdir(), `relm-web-child-later-${process.pid}-${Date.now()}`);
    const script = byTask({
      "PARENT: start one": [{ code: 'print(rlm("EARLY CHILD: print, then wait"))' }, echoLastCell],
      "EARLY CHILD": [
        {
          code: `print("early line, before any page", flush=True)\nopen(${JSON.stringify(printed)}, "w").close()\n${pythonWaitForFile(release)}\nprint("late line, after the release")`,
        },
        echoLastCell,
      ],
    });
    const w = await webRig(browser(), startRig, script);
    const { rig, page } = w;
    try {
      const id = await detach(rig, ["PARENT: start one"]);
      await until(() => (existsSync(printed) ? true : undefined), 60_000);
      await w.openChild(id, "EARLY CHILD");
      // The cell still runs (it waits for a file that does not exist yet), and what it printed before
      // this page opened is there.
      const cell = page.locator(".item.cell");
      await cell.locator(".output", { hasText: "early line, before any page" }).waitFor({ timeout: 60_000 });
      expect(await cell.getAttribute("class")).toContain("running");
      expect(await cell.locator(".output").textContent()).not.toContain("late line");

      writeFileSync(release, "");
      await cell.locator(".output", { hasText: "late line, after the release" }).waitFor({ timeout: 60_000 });
      await expect.poll(() => cell.getAttribute("class"), { timeout: 30_000 }).toContain("ok");
      const output = (await cell.locator(".output").textContent()) ?? "";
      expect(output.match(/early line/g)).toHaveLength(1);
    } finally {
      rmSync(printed, { force: true });
      rmSync(release, { force: true });
      await w.done();
    }
  }, 240_000);
});
