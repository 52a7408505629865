import { endpointName, noModelMessage, type ResolvedConfig } from "../config/config.js";
import { ConfigError } from "../config/errors.js";
import { subscriptionClientOptions } from "../llm/auth/client-options.js";
import { createModelClient } from "../llm/index.js";
import type { ModelClient } from "../llm/types.js";

/** The model client for the configured endpoint (or another model on it). */
export function buildClient(config: ResolvedConfig, model?: string): ModelClient {
  const m = config.model;
  const name = model ?? m.model;
  if (!name) throw new ConfigError(noModelMessage());
  return createModelClient({
    provider: m.provider,
    via: endpointName(m),
    baseUrl: m.baseUrl,
    apiKey: m.apiKey,
    model: name,
    // Another model than the configured one (llm(model=...), a spec's) was not set where m.model was.
    origins: name === m.model ? m.origins : { ...m.origins, model: undefined },
    stream: m.stream,
    maxAttempts: m.retry.maxAttempts,
    retryBaseMs: m.retry.baseMs,
    retryMaxMs: m.retry.maxMs,
    idleTimeoutMs: m.requestIdleTimeoutMs,
    ...(m.maxEventBytes ? { maxEventBytes: m.maxEventBytes } : {}),
    price: model ? config.prices[model] : m.price,
    acceptsImages: m.acceptsImages,
    ...(m.thinking ? { thinking: m.thinking } : {}),
    // The provider preset's request shape and catalog section.
    ...(m.headers ? { headers: m.headers } : {}),
    ...(m.query ? { query: m.query } : {}),
    ...(m.keyHeader ? { keyHeader: m.keyHeader } : {}),
    ...(m.catalog ? { catalog: m.catalog } : {}),
    ...(m.local ? { local: true } : {}),
    // A subscription's OAuth tokens (auth.json) authenticate instead of a key.
    ...(m.subscription ? subscriptionClientOptions(config.home, m.subscription) : {}),
  });
}
