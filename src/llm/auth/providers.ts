// The provider behind each subscription id, its OAuth endpoints moved when an override is given.
import type { SubscriptionId } from "../../config/subscriptions.js";
import { chatgptProvider } from "./chatgpt.js";
import { claudeProvider } from "./claude.js";
import { copilotProvider } from "./copilot.js";
import type { SubscriptionProvider } from "./types.js";

export function subscriptionProvider(id: SubscriptionId, oauthBase?: string): SubscriptionProvider {
  if (id === "claude") return claudeProvider(oauthBase);
  if (id === "chatgpt") return chatgptProvider(oauthBase);
  return copilotProvider(oauthBase);
}
