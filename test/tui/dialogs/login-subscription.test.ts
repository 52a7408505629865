// The picker's subscription entries: `relm login` in a terminal signs in to Claude Pro/Max against a local
// authorization server (the RELM_OAUTH_OPEN hook receives the page; the test is the browser), then saves.
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, tempDir } from "../../support/cli.js";
import { actAsBrowser, startOAuthServer } from "../../support/oauth-server.js";
import { useTui } from "../../support/tui.js";
import { until } from "../../support/wait.js";

const { startRig, open } = useTui();
let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe("login picker: subscriptions", () => {
  it("signs in to Claude Pro/Max through the browser hook, picks a model and saves the subscription", async () => {
    const server = await startOAuthServer();
    const scratch = tempDir("relm-hook-");
    cleanup.push(() => server.close(), scratch.cleanup);
    const rig = await startRig("anthropic", { script: [{ text: "ok" }] });
    rmSync(join(rig.home, "config.json"));
    const urlFile = join(scratch.path, "url");
    const env = cleanEnv({
      RELM_HOME: rig.home,
      RELM_CLAUDE_OAUTH_URL: server.url,
      RELM_OAUTH_CALLBACK_PORT: "0",
      RELM_OAUTH_OPEN: `printf %s > '${urlFile}'`,
      // The subscription's API is the scripted model here (an explicit base URL wins, as in a session).
      RELM_BASE_URL: rig.model.anthropicBaseUrl,
    });
    const ui = open(rig, ["login"], { env });
    await ui.waitFor("Choose a model provider");
    await ui.waitFor(/Claude Pro\/Max +subscription/);
    await ui.press("down", "down", "down", "down", "down", "enter");
    await ui.waitFor("Sign in to Claude Pro/Max");
    await ui.waitFor("A browser opened at this page");
    const url = await until(() => {
      try {
        return readFileSync(urlFile, "utf8") || undefined;
      } catch {
        return undefined;
      }
    });
    expect(await actAsBrowser(url)).toBe(200);
    await ui.waitFor("Choose a model (Claude Pro/Max)");
    await ui.press("enter");
    expect((await ui.waitForExit()).exitCode).toBe(0);
    expect(ui.allText()).toMatch(
      /saved .*config\.json \(claude-sonnet-4-5 with your Claude Pro\/Max subscription\)/,
    );
    // The one-token test request went to the chosen model, signed in with the subscription, and its
    // outcome is said.
    expect(ui.allText()).toContain("a one-token test request to claude-sonnet-4-5 answered");
    const test = rig.model.requests[0];
    expect(JSON.parse(test?.rawBody ?? "{}")).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 1 });
    expect(test?.headers.authorization).toBe(`Bearer ${server.issued[0]}`);
    expect(statSync(join(rig.home, "auth.json")).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(join(rig.home, "config.json"), "utf8"));
    expect(config).toMatchObject({ subscription: "claude", model: "claude-sonnet-4-5" });
    expect(ui.allText()).not.toContain(server.issued[0]);
  });
});
