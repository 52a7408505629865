import { expect, it } from "vitest";
import { HarnessStore, type Revision, scopeLocation } from "../../../src/learning/store/index.js";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { describeInBrowser } from "../../support/browser.js";
import { runRelm } from "../../support/cli.js";
import { isRefine, lessonOnce, sessionIds } from "../../support/harness.js";
import { useRigs } from "../../support/scripted.js";
import { screenshot, webRig } from "../../support/web-rig.js";

const startRig = useRigs();
const SECRET = "sk-proj-learning-view-secret-0123456789abcdef";
const LEARNER = "LEARN: count to three";
const REPORT = "TASK: write the report";
const HOSTILE =
  "HOSTILE-LESSON <img src=x onerror=\"window.__pwned='img'\"><script>window.__pwned='script'</script> [x](javascript:window.__pwned='link') out.txt is read by the gate.";

/** The learner runs three cells and its learning pass proposes HOSTILE once; a report writes out.txt. */
function script() {
  const refine = lessonOnce(HOSTILE, "the report gate passes at the first try");
  return (ctx: ScriptContext): ScriptStep => {
    if (isRefine(ctx)) return refine(ctx);
    const messages = (ctx.body as { messages: { role: string }[] }).messages;
    if (ctx.rawBody.includes(LEARNER)) {
      const done = messages.filter((m) => m.role === "tool").length;
      return done < 3 ? { code: `print(${done + 1})` } : { text: "counted" };
    }
    if (messages.at(-1)?.role === "tool") return { text: "written" };
    return { code: "open('out.txt', 'w').write('good')" };
  };
}

describeInBrowser(`the learning view`, (browser) => {
  it("lessons by scope with their probation state, verdict and revisions' diffs; hostile text inert, secrets redacted", async () => {
    const w = await webRig(
      browser(),
      startRig,
      script(),
      { OPENAI_API_KEY: SECRET },
      { learn: { every_turns: 2, at_compaction: false } },
    );
    const { rig, page } = w;
    const relm = async (args: string[], code = 0) => {
      const before = new Set(sessionIds(rig.home));
      const result = await runRelm(args, { env: rig.env, cwd: rig.cwd });
      expect(result.code, result.stderr).toBe(code);
      return sessionIds(rig.home).find((s) => !before.has(s)) as string;
    };
    const gated = ["run", "--gate", "grep -q good out.txt", REPORT];
    try {
      await relm([
        "harness",
        "add",
        "memory",
        `PROJECT-NOTE the deploy key is ${SECRET}`,
        "--scope",
        "project",
      ]);
      await relm(gated);
      await relm(gated);
      await relm(["run", "--learn", LEARNER]);
      const probation = new HarnessStore(scopeLocation("probation", { cwd: rig.cwd, home: rig.home }));
      const [carried] = probation.revisions() as [Revision];
      const lesson = carried.edits[0]?.id as string;
      await relm(gated);
      const id = await relm(gated);

      await w.openSession(id);
      const panel = page.locator("details.learning");
      await panel
        .locator("> summary")
        .waitFor({ timeout: 60_000 })
        .catch(async (error: Error) => {
          // What the server answered, to tell a page that drew nothing from a view that was empty.
          const answer = await page.request.get(`${w.web.base}/api/sessions/${id}/learning`);
          throw new Error(`${error.message}\nGET learning: ${answer.status()} ${await answer.text()}`);
        });
      expect(await panel.locator("> summary").textContent()).toContain("1 on probation");
      await panel.locator("> summary").click();
      // The lesson on probation: in this session's prompt, with the verdict its host measured.
      const row = panel.locator(`[data-scope="probation"] .lesson[data-lesson="${lesson}"]`);
      expect(await row.getAttribute("data-state")).toBe("on probation (in this session's prompt)");
      // The verdict is journaled by the last session's host as it ends: the view is asked again then.
      await expect
        .poll(() => row.locator(".verdict").getAttribute("data-verdict"), { timeout: 60_000 })
        .toBe("neutral");
      expect(await row.locator(".verdict").textContent()).toBe("neutral so far");
      expect(await row.textContent()).toContain("hypothesis: the report gate passes at the first try");
      expect(await panel.locator(".learning-events").textContent()).toContain(
        `⚖ lesson ${lesson} on probation (revision ${carried.rev}) neutral so far`,
      );
      // Its revision, with the diff `relm harness show` prints.
      const revision = panel.locator(`[data-scope="probation"] .revision[data-rev="${carried.rev}"]`);
      await revision.locator("summary").click();
      const diff = (await revision.locator("pre").textContent()) ?? "";
      expect(diff).toContain(`+ add memory ${lesson}`);
      expect(diff).toContain("+   HOSTILE-LESSON <img src=x");
      expect(await revision.locator("pre .added").count()).toBeGreaterThan(1);
      // The hostile lesson is text: no element of it, nothing ran.
      expect(await row.locator(".lesson-text").textContent()).toContain(
        "<script>window.__pwned='script'</script>",
      );
      expect(await panel.locator("img, script, a[href^='javascript']").count()).toBe(0);
      expect(await page.evaluate(() => (window as { __pwned?: string }).__pwned)).toBeUndefined();
      // The project's lesson, redacted of the secret: in the page and in what the server sends.
      const note = panel.locator('[data-scope="project"] .lesson .lesson-text');
      expect(await note.textContent()).toBe("PROJECT-NOTE the deploy key is [REDACTED]");
      expect(await page.content()).not.toContain(SECRET);
      const raw = await (await page.request.get(`${w.web.base}/api/sessions/${id}/learning`)).text();
      expect(raw).toContain("PROJECT-NOTE");
      expect(raw).not.toContain(SECRET);
      // Token-checked like every request: without the cookie or the token, nothing.
      expect((await fetch(`${w.web.base}/api/sessions/${id}/learning`)).status).toBe(403);
      // Its summary just under the page's bar.
      await panel.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 45));
      await screenshot(page, "web-learning");
    } finally {
      await w.done();
    }
  }, 300_000);
});
