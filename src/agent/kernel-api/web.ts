// `fetch`, `fetch.raw` and `search` from Python (python/relm/toolkit/web.py): the request runs here, in
// the host, so the kernel needs no network (a sandboxed kernel has none), the allow-list is enforced
// where the kernel cannot reach it, and a search provider's key never enters a kernel. Like MCP calls, a
// request stops at the time budget's deadline and when the cell that made it is interrupted (web.cancel).

import { Redactor } from "../../session/redact.js";
import {
  getWithLimits,
  readable,
  type SearchSettings,
  WebError,
  type WebPolicy,
  webSearch,
} from "../../web/index.js";
import type { Budget } from "../budget/budget.js";
import { Deadline } from "../budget/deadline.js";
import { cancelCall, cancellable } from "./cancellable.js";
import { asRecord, KernelCallError, requiredString } from "./errors.js";

/** The web settings a tree shares (TreeOptions.web). */
export interface WebSettings {
  /** Hosts fetch() may reach (config.json's allowWeb and --allow-web); undefined: any. */
  allow?: string[];
  search?: SearchSettings;
}

export interface WebApiAgent {
  readonly id: string;
  readonly tree: {
    readonly options: {
      readonly secrets: string[];
      readonly web?: WebSettings;
    };
  };
  /** The agent's sandbox (its permission mode's): with its network closed, only allowed hosts. */
  readonly sandbox: { readonly net: { readonly kind: string } } | undefined;
  readonly budget: Budget;
}

/** The policy of an agent: the tree's allow-list; in a sandbox without open network, nothing unlisted. */
export function webPolicy(agent: Pick<WebApiAgent, "tree" | "sandbox">): WebPolicy {
  const net = agent.sandbox?.net.kind;
  return { allow: agent.tree.options.web?.allow, sandboxed: net !== undefined && net !== "all" };
}

const FETCH_DEFAULTS = { maxBytes: 5_000_000, rawMaxBytes: 20_000_000, timeoutS: 30, maxRedirects: 5 };
/** No request may ask for more than this (the bytes cross the kernel's pipe as base64). */
const MAX_BYTES_LIMIT = 100_000_000;
const MAX_TIMEOUT_S = 600;
const SEARCH_TIMEOUT_MS = 30_000;

export async function handleWebRequest(agent: WebApiAgent, method: string, raw: unknown): Promise<unknown> {
  const params = asRecord(raw, method);
  if (method === "web.cancel") return cancelCall(agent, method, params);
  if (method !== "web.fetch" && method !== "web.search")
    throw new KernelCallError(`the host has no method "${method}"`, "not_found");
  const settings = agent.tree.options.web ?? {};
  const policy = webPolicy(agent);
  const redactor = new Redactor(agent.tree.options.secrets);
  const what = method === "web.fetch" ? "fetch()" : "search()";
  // Not stopped when its kernel exits (no `gone`): the deadline bounds it.
  return cancellable(agent, params, undefined, async (signal) => {
    const deadline = new Deadline(agent.budget, signal);
    try {
      const result =
        method === "web.fetch"
          ? await fetchPage(params, policy, deadline.signal)
          : await search(params, settings, deadline.signal);
      return redactor.value(result);
    } catch (error) {
      if (deadline.signal.aborted) {
        if (deadline.expired)
          throw new KernelCallError(
            `${what}: cancelled because the time budget (--max-time) ran out`,
            "budget",
          );
        throw new KernelCallError(`${what}: cancelled`, "web");
      }
      if (error instanceof WebError) throw new KernelCallError(redactor.text(error.message), "web");
      throw error;
    } finally {
      deadline.dispose();
    }
  });
}

function numberParam(params: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const value = params[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0)
    throw new KernelCallError(`${name} must be a number above 0`);
  if (value > max) throw new KernelCallError(`${name} may be at most ${max}`);
  return value;
}

async function fetchPage(params: Record<string, unknown>, policy: WebPolicy, signal: AbortSignal) {
  const url = requiredString(params, "url");
  const raw = params.raw === true;
  const maxBytes = Math.floor(
    numberParam(
      params,
      "max_bytes",
      raw ? FETCH_DEFAULTS.rawMaxBytes : FETCH_DEFAULTS.maxBytes,
      MAX_BYTES_LIMIT,
    ),
  );
  const timeoutS = numberParam(params, "timeout", FETCH_DEFAULTS.timeoutS, MAX_TIMEOUT_S);
  const got = await getWithLimits(url, {
    maxBytes,
    timeoutMs: timeoutS * 1000,
    maxRedirects: FETCH_DEFAULTS.maxRedirects,
    policy,
    signal,
  });
  const head = {
    url: got.url,
    final_url: got.finalUrl,
    status: got.status,
    content_type: got.contentType,
    redirects: got.redirects,
    bytes: got.body.length,
  };
  if (raw) return { ...head, data: got.body.toString("base64") };
  if (got.status >= 400) {
    // The error page's text helps say why; a body that is not text is left out.
    const text = await readable(got.body, got.contentType, got.finalUrl).then(
      (r) => r.text,
      () => "",
    );
    return { ...head, kind: "error", text };
  }
  const page = await readable(got.body, got.contentType, got.finalUrl);
  return { ...head, kind: page.kind, title: page.title ?? null, text: page.text };
}

async function search(params: Record<string, unknown>, settings: WebSettings, signal: AbortSignal) {
  const query = requiredString(params, "query");
  if (!query.trim()) throw new KernelCallError("search(): the query is empty");
  const n = Math.floor(numberParam(params, "n", 5, 50));
  const results = await webSearch(settings.search, query, n, { timeoutMs: SEARCH_TIMEOUT_MS, signal });
  return { provider: settings.search?.provider, results };
}
