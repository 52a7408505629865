// config.json's search and allowWeb keys (the toolkit's web functions): checked like every other key, a
// search key never echoed in an error.
import { describe, expect, it } from "vitest";
import { checkConfig, configFileSchema } from "../../src/config/schema.js";

const check = (value: unknown) => () => checkConfig(configFileSchema, value, "/h/config.json");

describe("config.json search and allowWeb", () => {
  it("accepts each provider with an optional key and endpoint, and a list of hosts", () => {
    for (const provider of ["searxng", "brave", "tavily", "serper", "exa"])
      expect(check({ search: { provider, apiKey: "k", baseUrl: "http://127.0.0.1:1" } })).not.toThrow();
    expect(check({ allowWeb: ["docs.python.org", "127.0.0.1:8080"] })).not.toThrow();
  });

  it("names what is wrong, never the key", () => {
    expect(check({ search: { provider: "bing", apiKey: 42, baseUrl: "ftp://x" } })).toThrow(
      /search\.provider must be one of "searxng", "brave", "tavily", "serper", "exa", got "bing"/,
    );
    expect(check({ search: { provider: "brave", apiKey: ["sk-leak"] } })).toThrow(
      /search\.apiKey must be non-empty text, got a list/,
    );
    expect(check({ search: { provider: "brave", apiKey: ["sk-leak"] } })).not.toThrow(/sk-leak/);
    expect(check({ search: { provider: "brave", key: "x" } })).toThrow(/unknown field\(s\) key/);
    expect(check({ allowWeb: "docs.python.org" })).toThrow(/allowWeb must be a list of host names/);
  });
});
