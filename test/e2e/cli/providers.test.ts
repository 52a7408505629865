// Providers and the model catalog through the real CLI: a catalog model is priced with no configuration
// and held to --max-cost, config.json's prices win, an unknown model stays unpriced, a key in the
// environment picks its provider (Azure here, whose endpoint can be moved to a local stand-in), prompt-
// cache tokens reach the journal and `relm agents`, and `relm models` lists the catalog.

import { describe, expect, it } from "vitest";
import { findModel } from "../../../src/llm/catalog/index.js";
import { startScriptedModel } from "../../../src/scripted/index.js";
import { cleanEnv, runRelm, tempDir } from "../../support/cli.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { startProviderFront } from "../../support/provider-front.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
}

/** USD at per-million prices, cached tokens at their own rate (as relm prices them). */
function priced(u: Usage, p: { input: number; output: number; cachedInput: number }): number {
  return (
    ((u.inputTokens - u.cachedInputTokens) * p.input +
      u.cachedInputTokens * p.cachedInput +
      u.outputTokens * p.output) /
    1e6
  );
}

const spending = (lines: JournalLine[]) =>
  lines.filter((l) => l.type === "model_response" || l.type === "llm_call") as unknown as (JournalLine & {
    usage: Usage;
    cost: number | null;
  })[];

describe("the model catalog in a run", () => {
  it("prices a catalog model with no configuration, keeps --max-cost, and counts prompt-cache tokens", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ code: 'print(llm("say hi"))' }, { text: "hi there" }, { text: "done" }] },
      { env: { RELM_MODEL: "gpt-4o-mini" } },
    );
    const result = await runRelm(["run", "--max-cost", "1", "go"], { env: rig.env, cwd: rig.cwd });
    expect(result.stderr).not.toMatch(/--max-cost needs/);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("done");

    const { lines } = onlyJournal(rig.home);
    const spent = spending(lines);
    expect(spent.map((l) => l.type)).toEqual(["model_response", "llm_call", "model_response"]);
    // gpt-4o-mini's catalog prices (about $0.15 in, $0.60 out, less for cached input, per million).
    const price = findModel("gpt-4o-mini")?.price as { input: number; output: number; cachedInput: number };
    expect(price.cachedInput).toBeLessThan(price.input);
    for (const line of spent) {
      expect(line.cost).not.toBeNull();
      expect(line.cost as number).toBeCloseTo(priced(line.usage, price), 12);
    }
    // The scripted server reports a shared prefix as cached, as OpenAI does; the journal keeps it.
    const last = spent.at(-1) as (typeof spent)[number];
    expect(last.usage.cachedInputTokens).toBeGreaterThan(0);
    const cached = spent.reduce((sum, l) => sum + l.usage.cachedInputTokens, 0);
    const cost = spent.reduce((sum, l) => sum + (l.cost as number), 0);

    const agents = await runRelm(["agents", "--json"], { env: rig.env });
    const listed = JSON.parse(agents.stdout.trim().split("\n")[0] ?? "{}") as {
      cachedTokens?: number;
      cost: number | null;
    };
    expect(listed.cachedTokens).toBe(cached);
    expect(listed.cost as number).toBeCloseTo(cost, 12);
    const table = await runRelm(["agents"], { env: rig.env });
    expect(table.stdout).toMatch(/\bCACHED\b/);
    expect(table.stdout).toContain(` ${cached} `);
  });

  it("lets config.json's prices win over the catalog's, and refuses --max-cost for an unknown model", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ text: "done" }] },
      {
        env: { RELM_MODEL: "gpt-4o-mini" },
        config: { prices: { "gpt-4o-mini": { input: 1000, output: 2000 } } },
      },
    );
    const result = await runRelm(["run", "--max-cost", "5", "go"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(0);
    const [response] = spending(onlyJournal(rig.home).lines);
    const u = response?.usage as Usage;
    // No cachedInput price configured: cached tokens at the input price.
    expect(response?.cost as number).toBeCloseTo((u.inputTokens * 1000 + u.outputTokens * 2000) / 1e6, 12);

    const unknown = await runRelm(["run", "--max-cost", "1", "go"], {
      env: { ...rig.env, RELM_MODEL: "my-finetune-7b" },
      cwd: rig.cwd,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--max-cost needs the price of "my-finetune-7b"/);
  });
});

describe("prompt caching", () => {
  it("names the session to OpenAI's cache: every request of a session carries its id as prompt_cache_key", async () => {
    const rig = await startRig("openai", { script: [{ code: "x = 6 * 7\nx" }, { text: "42" }] });
    const env = { ...rig.env, RELM_PROVIDER: "openai-responses", RELM_BASE_URL: rig.model.responsesBaseUrl };
    const result = await runRelm(["run", "go"], { env, cwd: rig.cwd });
    expect(result.code).toBe(0);
    const id = onlyJournal(rig.home).dir.split("/").at(-1) as string;
    const bodies = rig.model.requests.map((r) => r.body as { prompt_cache_key?: string });
    expect(rig.model.requests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses"]);
    expect(bodies.map((b) => b.prompt_cache_key)).toEqual([id, id]);
    // Chat completions to a server that is not OpenAI's own get no such field (some refuse unknown ones).
    const plain = await startRig("openai", { script: [{ text: "ok" }] });
    expect((await runRelm(["run", "go"], { env: plain.env, cwd: plain.cwd })).code).toBe(0);
    expect(plain.model.requests[0]?.rawBody).not.toContain("prompt_cache_key");
  });
});

describe("provider presets from the command line", () => {
  it("an Azure key and endpoint in the environment choose Azure: deployment path, api-version, api-key", async () => {
    const model = await startScriptedModel({ script: [{ text: "from azure" }] });
    const front = await startProviderFront(model);
    const home = tempDir("relm-azure-home-");
    const cwd = tempDir("relm-azure-cwd-");
    try {
      const env = cleanEnv({
        RELM_HOME: home.path,
        RELM_MODEL: "gpt-4o-mini",
        AZURE_OPENAI_API_KEY: "azure-secret-key-123",
        AZURE_OPENAI_ENDPOINT: front.origin,
      });
      const result = await runRelm(["run", "hello"], { env, cwd: cwd.path });
      expect(result.stderr).not.toContain("azure-secret-key-123");
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe("from azure");
      const seen = front.requests[0];
      expect(seen?.path).toBe("/openai/deployments/gpt-4o-mini/chat/completions");
      expect(seen?.query).toEqual({ "api-version": "2024-10-21" });
      expect(seen?.headers["api-key"]).toBe("azure-secret-key-123");
      expect(seen?.headers.authorization).toBeUndefined();
      // The key went to the provider only: not into the journal.
      expect(onlyJournal(home.path).raw).not.toContain("azure-secret-key-123");

      // relm doctor asks for the model list the way requests go: api-version, the key as api-key.
      const doctor = await runRelm(["doctor"], { env, cwd: cwd.path });
      expect(doctor.stdout).not.toContain("azure-secret-key-123");
      const probe = front.requests.find((r) => r.path.endsWith("/models"));
      expect(probe?.path).toBe("/openai/deployments/gpt-4o-mini/models");
      expect(probe?.query).toEqual({ "api-version": "2024-10-21" });
      expect(probe?.headers["api-key"]).toBe("azure-secret-key-123");
      expect(probe?.headers.authorization).toBeUndefined();

      const wrong = await runRelm(["run", "--provider", "azur", "hello"], { env, cwd: cwd.path });
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(
        /^relm: --provider "azur" is not a known provider \(did you mean "azure"\?\); known: openai/,
      );
    } finally {
      await front.close();
      await model.close();
      home.cleanup();
      cwd.cleanup();
    }
  });

  it("relm models lists a provider's catalog with config overrides marked, and names a mistyped provider", async () => {
    const home = tempDir("relm-models-home-");
    try {
      const { writeFileSync } = await import("node:fs");
      writeFileSync(
        `${home.path}/config.json`,
        JSON.stringify({ prices: { "claude-haiku-4-5": { input: 9, output: 9 } } }),
      );
      const env = cleanEnv({ RELM_HOME: home.path });
      const listed = await runRelm(["models", "--provider", "anthropic", "--json"], { env });
      expect(listed.code).toBe(0);
      const models = listed.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(models.find((m) => m.id === "claude-sonnet-4-5")).toMatchObject({
        contextWindow: 200_000,
        price: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
        tools: true,
        images: true,
        configured: false,
      });
      expect(models.find((m) => m.id === "claude-haiku-4-5")).toMatchObject({
        price: { input: 9, output: 9 },
        configured: true,
      });
      const table = await runRelm(["models", "--provider", "anthropic"], { env });
      expect(table.stdout).toMatch(/^MODEL\s+WINDOW\s+OUTPUT\s+INPUT/);
      expect(table.stdout).toMatch(/claude-haiku-4-5 \*/);
      expect(table.stdout).toMatch(/catalog: @mariozechner\/pi-ai@/);
      const typo = await runRelm(["models", "--provider", "antropic"], { env });
      expect(typo.code).toBe(2);
      expect(typo.stderr).toMatch(/did you mean "anthropic"/);
      // --all listed every provider and dropped --provider without a word, even a mistyped one.
      const both = await runRelm(["models", "--all", "--provider", "antropic"], { env });
      expect(both.code).toBe(2);
      expect(both.stderr).toBe("relm: give --provider NAME or --all, not both\n");
    } finally {
      home.cleanup();
    }
  });

  it("line mode's headers name the preset chosen (ollama here), not the wire format it speaks", async () => {
    const rig = await startRig("openai", { script: [{ text: "hi" }] }, { env: { RELM_PROVIDER: "ollama" } });
    const host = new URL(rig.model.openaiBaseUrl).host;
    const result = await runRelm([], { env: rig.env, cwd: rig.cwd, input: "hello\n/exit\n" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`relm · scripted via ollama at ${host} · `);
    expect(result.stdout).toMatch(new RegExp(`relm · session \\w+ · scripted via ollama at ${host}\\n`));
    expect(result.stdout).not.toContain("via openai");
  });
});
