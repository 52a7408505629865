// /search-setup in the terminal UI: the provider search() uses in the kernels, its endpoint and its key
// (masked), saved in config.json's `search` (0600). The same choices as `relm login --search`; sessions
// started afterwards use it (a running session keeps the settings it started with).
import { join } from "node:path";
import { type ConfigFile, readConfigFile } from "../../config/config.js";
import { writePrivateJson } from "../../config/private-file.js";
import { DEFAULT_SEARCH_URL, NEEDS_KEY, SEARCH_PROVIDERS, type SearchProvider } from "../../web/search.js";
import type { AppApi } from "../app-api.js";
import { askText, pickFrom } from "./dialogs.js";

const LABELS: Record<SearchProvider, [string, string]> = {
  searxng: ["SearXNG", "your own or a public instance; JSON API, usually no key"],
  brave: ["Brave Search", "api.search.brave.com, X-Subscription-Token"],
  tavily: ["Tavily", "api.tavily.com, made for agents"],
  serper: ["Serper", "Google results via google.serper.dev"],
  exa: ["Exa", "api.exa.ai, neural search"],
};

export async function searchSetupInSession(app: AppApi): Promise<void> {
  const path = join(app.home, "config.json");
  const existing: ConfigFile = readConfigFile(path) ?? {};
  const saved = existing.search;
  const host = app.dialogs;
  for (;;) {
    const picked = await pickFrom(host, {
      title: "Web search for search()",
      text: "The host makes the requests: the key is never in a kernel. Saved in config.json (mode 0600).",
      items: SEARCH_PROVIDERS.map((p) => ({ value: p, label: LABELS[p][0], description: LABELS[p][1] })),
      initial: saved?.provider,
      filterable: false,
    });
    if (!picked) return app.note(app.theme.dim("search setup cancelled; nothing was written"));
    const provider = picked as SearchProvider;
    const current = saved?.provider === provider ? saved.baseUrl : undefined;
    const url = await askText(host, {
      title: `${LABELS[provider][0]}: endpoint`,
      text:
        provider === "searxng"
          ? "The instance's URL, e.g. https://searx.example.org"
          : "Enter keeps the public one",
      initial: current ?? DEFAULT_SEARCH_URL[provider] ?? "",
    });
    if (url === undefined) continue;
    const trimmed = url.trim().replace(/\/+$/, "");
    if (!/^https?:\/\//.test(trimmed)) {
      app.note(app.theme.error(`"${trimmed}" is not an http:// or https:// URL`));
      continue;
    }
    const baseUrl = trimmed === DEFAULT_SEARCH_URL[provider] ? undefined : trimmed;
    const kept = saved?.provider === provider && saved.baseUrl === baseUrl ? saved.apiKey : undefined;
    const key = await askText(host, {
      title: `${LABELS[provider][0]}: API key`,
      text: kept ? "Enter keeps the saved key" : NEEDS_KEY[provider] ? "Required" : "Enter for none",
      mask: true,
    });
    if (key === undefined) continue;
    const apiKey = key.trim() || kept;
    if (!apiKey && NEEDS_KEY[provider]) {
      app.note(app.theme.error(`${LABELS[provider][0]} needs an API key`));
      continue;
    }
    writePrivateJson(path, {
      ...existing,
      search: { provider, ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}) },
    });
    app.note(
      app.theme.ok(`✓ saved ${path}: search() uses ${LABELS[provider][0]} in sessions started from now`),
    );
    return;
  }
}
