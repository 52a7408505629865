// `relm login --search [PROVIDER]`: the web search provider search() uses in the kernel, its key and its
// endpoint, saved in config.json's `search` (the file is 0600; the key goes only to that provider, from
// the host, and is redacted from journals). Prompted line by line at a terminal; scripted otherwise
// (`--api-key-stdin`, `--base-url`).

import { text } from "node:stream/consumers";
import { type ConfigFile, readConfigFile, relmHomeFrom } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import { writePrivateJson } from "../../config/private-file.js";
import { DEFAULT_SEARCH_URL, NEEDS_KEY, SEARCH_PROVIDERS, type SearchProvider } from "../../web/search.js";
import { EXIT } from "../exit-codes.js";
import { cancelled, Prompt, QuestionCancelled } from "../question.js";
import type { RunIo } from "../run.js";

interface SearchLoginFlags {
  /** `--search` alone is true; `--search brave` names the provider. */
  search?: string | boolean;
  baseUrl?: string;
  apiKeyStdin?: boolean;
}

const NAMES: Record<SearchProvider, string> = {
  searxng: "SearXNG (your own or a public instance; JSON API, usually no key)",
  brave: "Brave Search API",
  tavily: "Tavily",
  serper: "Serper (Google results)",
  exa: "Exa",
};

type SearchSection = NonNullable<ConfigFile["search"]>;

function providerOf(text: string): SearchProvider {
  const name = text.trim().toLowerCase();
  const byNumber = /^\d+$/.test(name) ? SEARCH_PROVIDERS[Number(name) - 1] : undefined;
  const found = byNumber ?? SEARCH_PROVIDERS.find((p) => p === name);
  if (!found)
    throw new UsageError(`"${text}" is not a search provider; use one of ${SEARCH_PROVIDERS.join(", ")}`);
  return found;
}

function checkUrl(url: string): string {
  if (!/^https?:\/\//.test(url)) throw new UsageError(`"${url}" is not an http:// or https:// URL`);
  return url.replace(/\/+$/, "");
}

export async function loginSearch(flags: SearchLoginFlags, io: RunIo): Promise<number> {
  const path = `${relmHomeFrom(io.env)}/config.json`;
  const existing: ConfigFile = readConfigFile(path) ?? {};
  const named = typeof flags.search === "string" ? providerOf(flags.search) : undefined;
  const baseUrl = flags.baseUrl === undefined ? undefined : checkUrl(flags.baseUrl);
  let section: SearchSection;
  if (flags.apiKeyStdin || !process.stdin.isTTY) {
    if (!named)
      throw new UsageError("login --search: name the provider without a terminal, e.g. --search brave");
    section = await scripted(named, baseUrl, flags.apiKeyStdin === true, existing.search);
  } else {
    try {
      section = await prompted(named, baseUrl, existing.search, io);
    } catch (error) {
      if (!(error instanceof QuestionCancelled)) throw error;
      return cancelled(io.stderr, "login cancelled; nothing was saved");
    }
  }
  writePrivateJson(path, { ...existing, search: section });
  const where = section.baseUrl ?? DEFAULT_SEARCH_URL[section.provider];
  io.stdout.write(
    `saved ${path}: search() uses ${section.provider} at ${where}${section.apiKey ? " with the saved key" : ", no key"}\n`,
  );
  return EXIT.done;
}

/** The saved key is kept only for the same provider at the same endpoint. */
function keptKey(provider: SearchProvider, baseUrl: string | undefined, saved: SearchSection | undefined) {
  return saved && saved.provider === provider && saved.baseUrl === baseUrl ? saved.apiKey : undefined;
}

async function scripted(
  provider: SearchProvider,
  baseUrl: string | undefined,
  keyOnStdin: boolean,
  saved: SearchSection | undefined,
): Promise<SearchSection> {
  if (provider === "searxng" && !baseUrl)
    throw new UsageError(
      "login --search searxng needs the instance's URL: --base-url https://searx.example.org",
    );
  let apiKey = keyOnStdin ? (await text(process.stdin)).trim() : keptKey(provider, baseUrl, saved);
  if (keyOnStdin && !apiKey) throw new UsageError("--api-key-stdin: nothing arrived on stdin");
  if (!apiKey && NEEDS_KEY[provider])
    throw new UsageError(`${provider} needs an API key: pipe it in with --api-key-stdin`);
  apiKey ||= undefined;
  return { provider, ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}) };
}

async function prompted(
  named: SearchProvider | undefined,
  flagUrl: string | undefined,
  saved: SearchSection | undefined,
  io: RunIo,
): Promise<SearchSection> {
  const prompt = new Prompt(io.stdout);
  try {
    let provider = named;
    if (!provider) {
      for (const [i, p] of SEARCH_PROVIDERS.entries()) io.stdout.write(`  ${i + 1}. ${NAMES[p]}\n`);
      provider = providerOf(
        await prompt.ask("Search provider (a number or a name)", saved?.provider ?? "brave"),
      );
    }
    let baseUrl = flagUrl;
    if (!baseUrl) {
      // The saved endpoint when it is this provider's, else the public one (none for SearXNG).
      const fallback =
        (saved?.provider === provider ? saved.baseUrl : undefined) ?? DEFAULT_SEARCH_URL[provider];
      const chosen = await prompt.ask(fallback ? "Endpoint" : "Endpoint (the instance's URL)", fallback);
      if (!chosen && provider === "searxng") throw new UsageError("SearXNG needs the URL of an instance");
      // The public endpoint is the default; only another one is written down.
      baseUrl = chosen && chosen !== DEFAULT_SEARCH_URL[provider] ? checkUrl(chosen) : undefined;
    }
    const kept = keptKey(provider, baseUrl, saved);
    const hint = kept ? "Enter keeps the saved one" : NEEDS_KEY[provider] ? "required" : "Enter for none";
    const apiKey = (await prompt.secret(`API key (hidden; ${hint})`)) || kept;
    if (!apiKey && NEEDS_KEY[provider]) throw new UsageError(`${provider} needs an API key`);
    return { provider, ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}) };
  } finally {
    prompt.close();
  }
}
