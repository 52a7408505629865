// Which subscription (if any) a session's requests sign in with, and what that changes in the resolved
// endpoint: the subscription's wire format and API, no API key, its maker's list prices.
import { ConfigError } from "./errors.js";
import type { PresetRequestShape } from "./model-types.js";
import type { ConfigFile } from "./schema.js";
import {
  isSubscriptionId,
  oauthBaseOverride,
  SUBSCRIPTIONS,
  type SubscriptionId,
  subscriptionInfo,
} from "./subscriptions.js";

export interface SubscriptionSetting {
  id: SubscriptionId;
  /** The provider's OAuth endpoints moved here (RELM_<ID>_OAUTH_URL or config.json's oauthUrls). */
  oauthBase?: string;
}

/** The part of ModelConfig a subscription decides. */
interface Endpoint extends PresetRequestShape {
  provider: string;
  baseUrl: string;
  apiKey?: string;
  preset: string;
  subscription?: SubscriptionSetting;
  sources: { apiKey: string; baseUrl: string; provider: string };
  origins: { baseUrl?: string };
}

/**
 * RELM_SUBSCRIPTION (an id, or "none"), else config.json's `subscription` (what `relm login` saved) unless
 * --provider or RELM_PROVIDER names a provider for this run.
 */
export function subscriptionFrom(
  env: NodeJS.ProcessEnv,
  cfg: ConfigFile,
  providerNamed: boolean,
): SubscriptionSetting | undefined {
  const fromEnv = env.RELM_SUBSCRIPTION?.trim();
  const value =
    fromEnv !== undefined && fromEnv !== "" ? fromEnv : providerNamed ? undefined : cfg.subscription;
  if (!value || value === "none") return undefined;
  if (!isSubscriptionId(value)) {
    const known = SUBSCRIPTIONS.map((s) => s.id).join(", ");
    throw new ConfigError(`subscription "${value}" is not known; use one of ${known} (or "none")`);
  }
  return { id: value, oauthBase: oauthBaseOverride(value, env, cfg.oauthUrls) };
}

/** The endpoint with the subscription's API and wire format; an explicit base URL (flag, env) still wins. */
export function withSubscription<T extends Endpoint>(
  model: T,
  setting: SubscriptionSetting | undefined,
  explicitBaseUrl: string | undefined,
): T {
  if (!setting) return model;
  const info = subscriptionInfo(setting.id);
  const { headers: _h, query: _q, keyHeader: _k, local: _l, ...rest } = model;
  return {
    ...rest,
    provider: info.wire,
    preset: info.wire === "anthropic" ? "anthropic" : "openai",
    baseUrl: (explicitBaseUrl ?? info.apiBase).replace(/\/+$/, ""),
    apiKey: undefined,
    // Priced at the model maker's list prices (a Copilot catalog section would say 0).
    catalog: info.wire === "anthropic" ? "anthropic" : setting.id === "chatgpt" ? "openai" : undefined,
    subscription: setting,
    sources: {
      ...model.sources,
      provider: "config",
      baseUrl: explicitBaseUrl ? model.sources.baseUrl : "default",
      apiKey: "none",
    },
    // What a model error asks to check: the subscription's API, not a config.json baseUrl it ignores.
    origins: {
      ...model.origins,
      ...(explicitBaseUrl
        ? {}
        : { baseUrl: `the API of the ${info.label} subscription (--base-url or RELM_BASE_URL set another)` }),
    },
  } as T;
}
