// The subscriptions relm can sign in with: the plain facts configuration needs (which wire format and API
// endpoint each one uses, which environment variable moves its OAuth endpoints). The sign-in itself lives in
// llm/auth/; this layer only knows names and URLs.

export type SubscriptionId = "claude" | "chatgpt" | "copilot";

interface SubscriptionInfo {
  id: SubscriptionId;
  label: string;
  /** One line for pickers: which plan, how the sign-in goes. */
  description: string;
  /** The wire format its API speaks (a Provider name; "openai-responses" is OpenAI's Responses API). */
  wire: "anthropic" | "openai" | "openai-responses";
  /** The API the subscription's requests go to (RELM_BASE_URL / --base-url still override it). */
  apiBase: string;
  /** Models offered after sign-in, the first the default; any other name can be typed. */
  models: string[];
  /** Moves every OAuth endpoint of this provider to one base URL (tests, proxies, GitHub Enterprise). */
  oauthUrlEnv: string;
}

export const SUBSCRIPTIONS: readonly SubscriptionInfo[] = [
  {
    id: "claude",
    label: "Claude Pro/Max",
    description: "your Claude plan; sign in with the browser (or paste the redirect URL over ssh)",
    wire: "anthropic",
    apiBase: "https://api.anthropic.com",
    models: ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"],
    oauthUrlEnv: "RELM_CLAUDE_OAUTH_URL",
  },
  {
    id: "chatgpt",
    label: "ChatGPT Plus/Pro (Codex)",
    description: "your ChatGPT plan, as the Codex CLI uses it; browser or device code",
    wire: "openai-responses",
    apiBase: "https://chatgpt.com/backend-api/codex",
    models: ["gpt-5-codex", "gpt-5", "gpt-5-mini"],
    oauthUrlEnv: "RELM_CHATGPT_OAUTH_URL",
  },
  {
    id: "copilot",
    label: "GitHub Copilot",
    description: "your Copilot plan; sign in with a device code at github.com",
    wire: "openai",
    apiBase: "https://api.githubcopilot.com",
    models: ["gpt-4.1", "claude-sonnet-4", "gpt-5-mini"],
    oauthUrlEnv: "RELM_COPILOT_OAUTH_URL",
  },
];

export function subscriptionInfo(id: SubscriptionId): SubscriptionInfo {
  return SUBSCRIPTIONS.find((s) => s.id === id) as SubscriptionInfo;
}

export function isSubscriptionId(value: string): value is SubscriptionId {
  return SUBSCRIPTIONS.some((s) => s.id === value);
}

/** Names people type for each subscription (`relm login claude-max`, `relm logout codex`). */
const ALIASES: Record<string, SubscriptionId> = {
  claude: "claude",
  "claude-pro": "claude",
  "claude-max": "claude",
  chatgpt: "chatgpt",
  codex: "chatgpt",
  "openai-codex": "chatgpt",
  copilot: "copilot",
  "github-copilot": "copilot",
};

export function subscriptionNamed(name: string): SubscriptionId | undefined {
  return ALIASES[name.trim().toLowerCase()];
}

/** A provider's OAuth base URL override: its environment variable, else config.json's `oauthUrls`. */
export function oauthBaseOverride(
  id: SubscriptionId,
  env: NodeJS.ProcessEnv,
  configured: Partial<Record<SubscriptionId, string>> | undefined,
): string | undefined {
  const value = env[subscriptionInfo(id).oauthUrlEnv]?.trim() || configured?.[id];
  return value ? value.replace(/\/+$/, "") : undefined;
}
