// A rig for the browser tests of relm web: the scripted model, a `relm web` on it, and a browser context
// signed in with the token once `open` is called.
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import type { ScriptedModelOptions } from "../../src/scripted/index.js";
import { startWeb, type WebProcess } from "./browser.js";
import { ROOT, runRelm } from "./cli.js";
import type { Rig, useRigs } from "./scripted.js";

export const WEB_TOKEN = "web-test-token-0123456789abcdefghij";

export interface WebRig {
  rig: Rig;
  web: WebProcess;
  context: BrowserContext;
  page: Page;
  /** Signs the page in and opens session `id`'s page. */
  openSession(id: string): Promise<void>;
  /** Opens session `id`'s page, then the page of its sub-agent whose task holds `task` (from its tree row). */
  openChild(id: string, task: string): Promise<void>;
  done(): Promise<void>;
}

export async function webRig(
  browser: Browser,
  startRig: ReturnType<typeof useRigs>,
  script: ScriptedModelOptions["script"],
  env: Record<string, string> = {},
  /** Merged into the rig's config.json (e.g. a `learn` section). */
  config: Record<string, unknown> = {},
): Promise<WebRig> {
  const rig = await startRig("openai", { script }, { env: { RELM_WEB_TOKEN: WEB_TOKEN, ...env }, config });
  const web = await startWeb(rig.env);
  const context = await browser.newContext();
  // A locator's action waits this long at most (the library's default is no limit).
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  const openSession = async (id: string) => {
    await page.goto(web.url);
    await page.goto(`${web.base}/#/s/${id}`);
  };
  return {
    rig,
    web,
    context,
    page,
    openSession,
    openChild: async (id, task) => {
      await openSession(id);
      const row = page.locator(`.tree-row > .label[title*=${JSON.stringify(task)}]`);
      await row.waitFor({ timeout: 60_000 });
      await row.click();
    },
    done: async () => {
      await context.close();
      await web.stop();
      await runRelm(["shutdown"], { env: rig.env });
    },
  };
}

/** `relm run --detach ARGS…`: the new session's id. */
export async function detach(rig: Rig, args: string[]): Promise<string> {
  const result = await runRelm(["run", "--detach", ...args], { env: rig.env, cwd: rig.cwd });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

/** What `relm agents --json` says of session `id`'s status. */
export async function status(rig: Rig, id: string): Promise<string | undefined> {
  const result = await runRelm(["agents", "--json"], { env: rig.env });
  const lines = result.stdout.trim().split("\n").filter(Boolean);
  return lines.map((l) => JSON.parse(l) as { id: string; status: string }).find((s) => s.id === id)?.status;
}

/** With RELM_WEB_SCREENSHOTS=1, the page as it is now becomes docs/screenshots/NAME.png (docs/web.md). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!process.env.RELM_WEB_SCREENSHOTS) return;
  await page.setViewportSize({ width: 1100, height: 640 });
  await page.screenshot({ path: join(ROOT, "docs/screenshots", `${name}.png`) });
}
