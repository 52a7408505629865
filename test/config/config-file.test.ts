// config.json is checked against its schema (src/config/schema.ts): every key of the file, every
// message naming the key, what it must be and what it was.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readConfigFile, resolveConfig } from "../../src/config/config.js";
import { ConfigError } from "../../src/config/errors.js";
import { tempDir } from "../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function configFile(content: unknown): string {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const path = join(dir.path, "config.json");
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

function problem(content: unknown): string {
  const path = configFile(content);
  try {
    readConfigFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message.replace(`${path}`, "config.json");
  }
  throw new Error(`accepted ${JSON.stringify(content)}`);
}

describe("config.json", () => {
  it("accepts every key with a value of the right type", () => {
    const full = {
      provider: "anthropic",
      baseUrl: "http://localhost:11434/v1",
      apiKey: "sk-test-123456",
      model: "qwen3",
      python: "/usr/bin/python3",
      prices: { qwen3: { input: 0, output: 0.5, cachedInput: 0.1, cacheWrite: 1 } },
      acceptsImages: false,
      stream: true,
      retry: { maxAttempts: 3, baseMs: 5, maxMs: 50 },
      requestIdleTimeout: 1.5,
      maxStreamEventMB: 32,
      cellTimeoutSeconds: 60,
      outputCap: 5000,
      idleTimeoutSeconds: 600,
      kernelIdleTimeoutSeconds: 120,
      contextWindows: { qwen3: 32768 },
      compactAt: 0.7,
      refineModel: "big-model",
      mode: "plan",
      learn: {
        enabled: true,
        every_turns: false,
        at_compaction: false,
        on_gate_failure: 3,
        budget: { share: 0.5, tokens: 1000, cost: 0.25 },
        model: "m",
      },
    };
    expect(readConfigFile(configFile(full))).toEqual(full);
    expect(readConfigFile(configFile({}))).toEqual({});
    expect(readConfigFile(configFile({ learn: { budget: 0.1, on_gate_failure: 0 } }))).toEqual({
      learn: { budget: 0.1, on_gate_failure: 0 },
    });
  });

  it("names the key, what it must be and what it was", () => {
    const cases: [unknown, string][] = [
      [
        { cellTimeoutSeconds: "5m" },
        'config.json: cellTimeoutSeconds must be a number > 0 (seconds), got "5m"',
      ],
      [{ cellTimeoutSeconds: 0 }, "config.json: cellTimeoutSeconds must be a number > 0 (seconds), got 0"],
      [
        { provider: 42 },
        'config.json: provider must be a provider name such as "openai", "anthropic" or "openrouter", got 42',
      ],
      [
        { baseUrl: "localhost:11434" },
        'config.json: baseUrl must be an http:// or https:// URL, got "localhost:11434"',
      ],
      [{ model: "" }, 'config.json: model must be a model name, got ""'],
      [{ apiKey: 123456789012 }, "config.json: apiKey must be non-empty text, got a number"],
      [{ stream: "yes" }, 'config.json: stream must be true or false, got "yes"'],
      [{ maxStreamEventMB: 0 }, "config.json: maxStreamEventMB must be a number > 0 (megabytes), got 0"],
      [
        { outputCap: 2.5 },
        "config.json: outputCap must be a whole number of 1 or more (characters), got 2.5",
      ],
      [
        { retry: { maxAttempts: 0 } },
        "config.json: retry.maxAttempts must be a whole number of 1 or more (tries), got 0",
      ],
      [{ prices: { m: { input: 1 } } }, "config.json: prices.m.output is missing"],
      [
        { prices: { m: { input: 1, output: 1, cached: 2 } } },
        "config.json: prices.m: unknown field(s) cached; known fields: input, output, cachedInput, cacheWrite",
      ],
      [
        { contextWindows: { m: "32k" } },
        'config.json: contextWindows.m must be a whole number of 1 or more (tokens), got "32k"',
      ],
      [
        { compactAt: 80 },
        "config.json: compactAt must be a fraction of the context window: above 0, at most 1, got 80",
      ],
      [
        { learn: { every_turns: 2.5 } },
        "config.json: learn.every_turns must be a whole number of 0 or more, or false, got 2.5",
      ],
      [
        { learn: { budget: { tokens: -1 } } },
        "config.json: learn.budget.tokens must be a whole number of 1 or more, got -1",
      ],
      [{ learn: [] }, "config.json: learn must be an object, got []"],
      [{ mode: "yolo" }, 'config.json: mode must be "plan", "workspace" or "full", got "yolo"'],
      [[], "config.json must hold a JSON object, got []"],
      [
        { cellTimeout: 5, modle: "x" },
        "config.json: unknown field(s) cellTimeout, modle; known fields: provider, baseUrl, apiKey, model, python, prices, acceptsImages, stream, retry, thinking, requestIdleTimeout, maxStreamEventMB, cellTimeoutSeconds, outputCap, idleTimeoutSeconds, kernelIdleTimeoutSeconds, snapshotMaxVariableMB, snapshotMaxTotalMB, snapshotMaxLargeMB, contextWindows, compactAt, refineModel, learn, subscription, oauthUrls, search, allowWeb, mode, sandbox, kernel, approve, approvals, hooks, allowNet",
      ],
      // Every problem at once, not one per run.
      [
        { stream: 1, outputCap: -1 },
        "config.json: stream must be true or false, got 1; outputCap must be a whole number of 1 or more (characters), got -1",
      ],
    ];
    for (const [content, message] of cases) expect(problem(content)).toBe(message);
    expect(problem("{ not json")).toMatch(/^config\.json is not valid JSON \(.*\); fix or delete it$/);
  });

  it("names config.json and the fix when it cannot be read", () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    mkdirSync(join(dir.path, "config.json"));
    expect(() => resolveConfig({ RELM_HOME: dir.path })).toThrow(
      `${join(dir.path, "config.json")} could not be read (EISDIR); make it a readable file or delete it`,
    );
  });

  it("is checked by every command that reads the configuration", () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    writeFileSync(join(dir.path, "config.json"), JSON.stringify({ idleTimeoutSeconds: "never" }));
    expect(() => resolveConfig({ RELM_HOME: dir.path })).toThrow(
      `${join(dir.path, "config.json")}: idleTimeoutSeconds must be a number > 0 (seconds), got "never"`,
    );
  });

  it("reads a file saved with a byte order mark, as Windows editors save UTF-8", () => {
    // It was refused as "not valid JSON (Unexpected token '\ufeff' ...)", naming a character nobody sees.
    const path = configFile(`\ufeff${JSON.stringify({ model: "m", mode: "full" })}\n`);
    expect(readConfigFile(path)).toEqual({ model: "m", mode: "full" });
  });
});
