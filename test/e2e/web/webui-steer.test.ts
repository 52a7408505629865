// relm web steers a session as the terminal UI's /goal and /autonomous do: a goal set in the page goes
// through the host's `goal` method into the session's journal (and its transcript), autonomy turned on
// with a gate is what the host then says, and off again. Real chromium, a detached session of the
// scripted model over HTTP.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { ScriptContext } from "../../../src/scripted/index.js";
import { describeInBrowser } from "../../support/browser.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";
import { detach, screenshot, status, webRig } from "../../support/web-rig.js";

const startRig = useRigs();

const echo = (ctx: ScriptContext) => ({
  text: `echo ${/say (\S+)/.exec(ctx.lastUserText ?? "")?.[1] ?? "nothing"}`,
});

function journal(rig: Rig, id: string): { type: string; text?: string }[] {
  return readFileSync(join(rig.home, "sessions", id, "journal.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describeInBrowser(`steering from the page`, (browser) => {
  it("a goal set in the page reaches the journal; autonomy on with a gate and off, as the host says", async () => {
    const w = await webRig(browser(), startRig, [echo, echo, echo]);
    const { rig, page } = w;
    try {
      const id = await detach(rig, ["task: say one"]);
      await until(async () => ((await status(rig, id)) === "idle" ? true : undefined), 60_000);
      await w.openSession(id);
      const summary = page.locator(".steer > summary");
      await expect
        .poll(() => summary.textContent(), { timeout: 30_000 })
        .toContain("no goal · autonomous: off");
      await summary.click();

      await page.locator('.goal-form input[name="goal"]').fill("ship the parser with tests");
      await page.getByRole("button", { name: "Set goal" }).click();
      await expect
        .poll(() => summary.textContent(), { timeout: 30_000 })
        .toContain("goal: ship the parser with tests");
      // The host journaled it, and the page's transcript shows the journal's line.
      await until(
        () => journal(rig, id).find((e) => e.type === "goal" && e.text === "ship the parser with tests"),
        30_000,
      );
      await page
        .locator(".item", { hasText: "goal: ship the parser with tests" })
        .waitFor({ timeout: 30_000 });

      await page.locator('.autonomy-form textarea[name="gates"]').fill("test -f nothing-here\n  \ntrue");
      await page.getByRole("button", { name: "Autonomous on" }).click();
      await expect
        .poll(() => summary.textContent(), { timeout: 30_000 })
        .toContain("autonomous: on — done when test -f nothing-here, true exit 0");
      // A page opened afresh asks the host: the same.
      await page.reload();
      await expect
        .poll(() => page.locator(".steer > summary").textContent(), { timeout: 30_000 })
        .toContain(
          "goal: ship the parser with tests · autonomous: on — done when test -f nothing-here, true exit 0",
        );
      await page.locator(".steer > summary").click();
      await screenshot(page, "web-steer");
      await page.getByRole("button", { name: "Autonomous off" }).click();
      await expect
        .poll(() => page.locator(".steer > summary").textContent(), { timeout: 30_000 })
        .toContain("autonomous: off");
      // An empty goal is refused by the page's button; the server says why to a script that sends one.
      const refused = await page.evaluate(async (sid) => {
        const res = await fetch(`/api/sessions/${sid}/steer`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ goal: "  " }),
        });
        return { status: res.status, body: await res.json() };
      }, id);
      expect(refused).toEqual({ status: 409, body: { error: "the goal is empty" } });
    } finally {
      await w.done();
    }
  }, 240_000);
});
