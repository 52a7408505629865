// Web search through the provider the user configured (`relm login --search`): each provider's documented
// request and response, reduced to {title, url, snippet}. The key is sent only to its provider, from the
// host; no kernel ever holds it.

import { WebError } from "./http.js";

export const SEARCH_PROVIDERS = ["searxng", "brave", "tavily", "serper", "exa"] as const;
export type SearchProvider = (typeof SEARCH_PROVIDERS)[number];

export interface SearchSettings {
  provider: SearchProvider;
  apiKey?: string;
  /** The provider's endpoint; its public one when unset (SearXNG has none: an instance must be named). */
  baseUrl?: string;
}

interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export const DEFAULT_SEARCH_URL: Record<SearchProvider, string | undefined> = {
  searxng: undefined,
  brave: "https://api.search.brave.com/res/v1/web/search",
  tavily: "https://api.tavily.com/search",
  serper: "https://google.serper.dev/search",
  exa: "https://api.exa.ai/search",
};

/** Who needs a key (SearXNG instances are usually open; a key, if set, goes as a bearer token). */
export const NEEDS_KEY: Record<SearchProvider, boolean> = {
  searxng: false,
  brave: true,
  tavily: true,
  serper: true,
  exa: true,
};

interface Request {
  url: string;
  init: RequestInit;
}

function buildRequest(s: SearchSettings, query: string, n: number): Request {
  const base = s.baseUrl ?? DEFAULT_SEARCH_URL[s.provider];
  if (!base)
    throw new WebError(
      "search(): SearXNG needs the URL of an instance; set it with relm login --search (e.g. https://searx.example.org)",
    );
  /** A JSON POST to the endpoint with the provider's key header. */
  const post = (auth: Record<string, string>, body: unknown): Request => ({
    url: base,
    init: {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...auth },
      body: JSON.stringify(body),
    },
  });
  switch (s.provider) {
    case "searxng": {
      // GET /search?q=…&format=json (the instance must have the json format enabled in its settings).
      const url = new URL(`${base.replace(/\/+$/, "").replace(/\/search$/, "")}/search`);
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      const headers: Record<string, string> = { accept: "application/json" };
      if (s.apiKey) headers.authorization = `Bearer ${s.apiKey}`;
      return { url: url.href, init: { method: "GET", headers } };
    }
    case "brave": {
      // GET /res/v1/web/search?q=…&count=N with X-Subscription-Token.
      const url = new URL(base);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(Math.min(n, 20)));
      return {
        url: url.href,
        init: { method: "GET", headers: { accept: "application/json", "x-subscription-token": key(s) } },
      };
    }
    case "tavily":
      // POST /search {query, max_results} with a bearer token.
      return post({ authorization: `Bearer ${key(s)}` }, { query, max_results: Math.min(n, 20) });
    case "serper":
      // POST /search {q, num} with X-API-KEY.
      return post({ "x-api-key": key(s) }, { q: query, num: Math.min(n, 100) });
    case "exa":
      // POST /search {query, numResults, contents: {highlights}} with x-api-key.
      return post(
        { "x-api-key": key(s) },
        { query, numResults: Math.min(n, 100), contents: { highlights: true } },
      );
  }
}

function key(s: SearchSettings): string {
  if (!s.apiKey)
    throw new WebError(`search(): ${s.provider} needs an API key; set it with relm login --search`);
  return s.apiKey;
}

type Json = Record<string, unknown>;

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((v): v is Json => v !== null && typeof v === "object") : [];
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A hit from one result: its title, its URL under the provider's name for it, and its snippet. */
function hit(r: Json, urlField: string, snippet: string): SearchHit {
  return { title: str(r.title), url: str(r[urlField]), snippet };
}

/** The hits of a provider's answer, in its order. */
function parseResults(provider: SearchProvider, body: unknown): SearchHit[] {
  const data = (body ?? {}) as Json;
  switch (provider) {
    case "searxng":
    case "tavily":
      return list(data.results).map((r) => hit(r, "url", str(r.content)));
    case "brave":
      return list((data.web as Json | undefined)?.results).map((r) =>
        hit(r, "url", stripTags(str(r.description))),
      );
    case "serper":
      return list(data.organic).map((r) => hit(r, "link", str(r.snippet)));
    case "exa":
      return list(data.results).map((r) => {
        const highlights = Array.isArray(r.highlights)
          ? r.highlights.filter((h) => typeof h === "string")
          : [];
        return hit(r, "url", highlights.join(" … ") || str(r.summary) || str(r.text).slice(0, 400));
      });
  }
}

/** Brave marks the query's words with <strong>. */
function stripTags(text: string): string {
  return text.replace(/<\/?[a-z][^>]*>/gi, "");
}

export async function webSearch(
  settings: SearchSettings | undefined,
  query: string,
  n: number,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<SearchHit[]> {
  if (!settings)
    throw new WebError(
      "search(): no search provider is configured; run relm login --search (SearXNG, Brave, Tavily, Serper or Exa)",
    );
  const { url, init } = buildRequest(settings, query, n);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, signal, redirect: "error" });
    text = await response.text();
  } catch (error) {
    if (timeout.aborted)
      throw new WebError(
        `search(): ${settings.provider} gave no answer within ${options.timeoutMs / 1000} s`,
      );
    if (options.signal?.aborted) throw error;
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new WebError(
      `search(): ${settings.provider} at ${new URL(url).host} could not be reached (${cause})`,
    );
  }
  if (!response.ok) {
    const hint =
      response.status === 401 || response.status === 403
        ? "; check the key with relm login --search"
        : response.status === 429
          ? "; the provider's rate limit was reached, wait or lower the rate"
          : "";
    throw new WebError(
      `search(): ${settings.provider} answered HTTP ${response.status}${hint}: ${text.slice(0, 300).trim()}`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new WebError(`search(): ${settings.provider} did not answer JSON: ${text.slice(0, 200).trim()}`);
  }
  return parseResults(settings.provider, body)
    .filter((h) => h.url)
    .slice(0, n);
}
