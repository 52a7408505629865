// A malformed model base URL is refused before any request, with the flag, variable or config key it
// came from: the URL parser alone takes "http://127.0.0.1:/v1" (an empty port) and "http:///v1".

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { baseUrlProblem } from "../../src/config/base-url.js";
import { resolveConfig } from "../../src/config/config.js";
import { tempDir } from "../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function home(config?: unknown): string {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  if (config) writeFileSync(join(dir.path, "config.json"), JSON.stringify(config));
  return dir.path;
}

/** The error resolveConfig throws, as message and exit code. */
function refusal(
  env: NodeJS.ProcessEnv,
  flags: { baseUrl?: string } = {},
): { message: string; exitCode: number } {
  try {
    resolveConfig(env, flags);
  } catch (error) {
    return { message: (error as Error).message, exitCode: (error as { exitCode: number }).exitCode };
  }
  throw new Error("accepted");
}

describe("base URLs", () => {
  it("refuses an empty port, a missing host, another scheme, a bad port and a ?query or #fragment", () => {
    expect(baseUrlProblem("http://127.0.0.1:/v1")).toMatch(/empty port/);
    expect(baseUrlProblem("http://[::1]:/v1")).toMatch(/empty port/);
    expect(baseUrlProblem("http://127.0.0.1:")).toMatch(/empty port/);
    expect(baseUrlProblem("http:///v1")).toMatch(/no host/);
    expect(baseUrlProblem("http://:8080/v1")).toMatch(/no host/);
    expect(baseUrlProblem("http://user@/v1")).toMatch(/no host/);
    expect(baseUrlProblem("ftp://example.com/v1")).toMatch(/must start with http:\/\/ or https:\/\//);
    expect(baseUrlProblem("localhost:11434/v1")).toMatch(/must start with http/);
    expect(baseUrlProblem("http://127.0.0.1:99999/v1")).toMatch(/not a valid URL/);
    expect(baseUrlProblem("http://127.0.0.1:80a/v1")).toMatch(/not a valid URL/);
    expect(baseUrlProblem("http://localhost:8000/v1?x=1")).toMatch(/\?query or #fragment/);
    expect(baseUrlProblem("http://localhost:8000/v1#x")).toMatch(/\?query or #fragment/);
  });

  it("takes what endpoints look like", () => {
    for (const url of [
      "http://127.0.0.1:11434/v1",
      "http://localhost/v1",
      "https://api.openai.com/v1",
      "HTTPS://API.ANTHROPIC.COM",
      "http://[::1]:8080/v1",
      "http://user:pw@proxy.example:3128/v1",
      "https://res.openai.azure.com/openai/deployments/{model}",
    ]) {
      expect(baseUrlProblem(url), url).toBeUndefined();
    }
  });

  it("names where the bad URL came from: a flag is a usage error (2), the environment or config.json exit 1", () => {
    const env = { RELM_HOME: home(), RELM_MODEL: "m" };
    expect(refusal(env, { baseUrl: "http://127.0.0.1:/v1" })).toEqual({
      message:
        "--base-url: base URL \"http://127.0.0.1:/v1\" has an empty port after the ':' (give one, e.g. :8080, or drop the ':')",
      exitCode: 2,
    });
    expect(refusal({ ...env, RELM_BASE_URL: "http://127.0.0.1:/v1" })).toMatchObject({
      message: expect.stringMatching(
        /^RELM_BASE_URL: base URL "http:\/\/127\.0\.0\.1:\/v1" has an empty port/,
      ),
      exitCode: 1,
    });
    expect(refusal({ ...env, OPENAI_BASE_URL: "http:///v1" })).toMatchObject({
      message: expect.stringMatching(/^OPENAI_BASE_URL: base URL "http:\/\/\/v1" has no host/),
      exitCode: 1,
    });
    expect(refusal({ ...env, RELM_PROVIDER: "ollama", OLLAMA_HOST: "127.0.0.1:" })).toMatchObject({
      message: expect.stringMatching(/^OLLAMA_HOST: base URL "http:\/\/127\.0\.0\.1:\/v1" has an empty port/),
      exitCode: 1,
    });
    const withFile = home({ baseUrl: "http://127.0.0.1:/v1", model: "m" });
    expect(refusal({ RELM_HOME: withFile })).toMatchObject({
      message: expect.stringMatching(
        new RegExp(
          `^baseUrl in ${join(withFile, "config.json")}: base URL "http://127\\.0\\.0\\.1:/v1" has an empty port`,
        ),
      ),
      exitCode: 1,
    });
  });

  it("tells a model error what set the base URL in use, never a variable that is not set", () => {
    const origin = (env: NodeJS.ProcessEnv, flags: { baseUrl?: string } = {}) =>
      resolveConfig({ RELM_MODEL: "m", ...env }, flags).model.origins.baseUrl;
    const bare = home();
    const path = join(bare, "config.json");
    expect(origin({ RELM_HOME: bare }, { baseUrl: "http://127.0.0.1:1/v1" })).toBe("--base-url");
    expect(origin({ RELM_HOME: bare, RELM_BASE_URL: "http://127.0.0.1:1/v1" })).toBe("RELM_BASE_URL");
    expect(origin({ RELM_HOME: bare, RELM_PROVIDER: "ollama", OLLAMA_HOST: "127.0.0.1:1" })).toBe(
      "OLLAMA_HOST",
    );
    const saved = home({ baseUrl: "http://127.0.0.1:1/v1" });
    expect(origin({ RELM_HOME: saved })).toBe(`baseUrl in ${join(saved, "config.json")}`);
    // The preset's own default: named as that, with what sets another.
    expect(origin({ RELM_HOME: bare, RELM_PROVIDER: "lmstudio" })).toBe(
      `the default base URL of provider "lmstudio" (--base-url, RELM_BASE_URL or baseUrl in ${path} set another)`,
    );
    expect(origin({ RELM_HOME: bare, RELM_PROVIDER: "azure" })).toBe(
      `the default base URL of provider "azure" (--base-url, RELM_BASE_URL, AZURE_OPENAI_ENDPOINT or baseUrl in ${path} set another)`,
    );
    // A subscription's API, even with a baseUrl left in config.json (which the subscription does not use).
    const signedIn = home({ subscription: "chatgpt", baseUrl: "http://127.0.0.1:1/v1" });
    const subscribed = resolveConfig({ RELM_HOME: signedIn, RELM_MODEL: "m" }).model;
    expect(subscribed.baseUrl).toBe("https://chatgpt.com/backend-api/codex");
    expect(subscribed.origins.baseUrl).toBe(
      "the API of the ChatGPT Plus/Pro (Codex) subscription (--base-url or RELM_BASE_URL set another)",
    );
    expect(origin({ RELM_HOME: signedIn, RELM_BASE_URL: "http://127.0.0.1:1/v1" })).toBe("RELM_BASE_URL");
  });
});
