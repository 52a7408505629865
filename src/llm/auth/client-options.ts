// What a model client needs to send a subscription's requests: its auth callback (one SubscriptionAuth per
// home and subscription in this process, so every agent of a session shares one refresh) and, for Claude,
// the identity line its API expects first in the system prompt.
import type { SubscriptionSetting } from "../../config/subscription-config.js";
import type { ClientOptions } from "../types.js";
import { SubscriptionAuth } from "./request-auth.js";

const shared = new Map<string, SubscriptionAuth>();

export function subscriptionAuth(home: string, setting: SubscriptionSetting): SubscriptionAuth {
  const key = `${home}\u0000${setting.id}\u0000${setting.oauthBase ?? ""}`;
  let auth = shared.get(key);
  if (!auth) {
    auth = new SubscriptionAuth(home, setting.id, setting.oauthBase);
    shared.set(key, auth);
  }
  return auth;
}

export function subscriptionClientOptions(
  home: string,
  setting: SubscriptionSetting,
): Pick<ClientOptions, "auth" | "systemPreamble" | "sendOutputCap"> {
  const auth = subscriptionAuth(home, setting);
  return {
    auth: auth.headers,
    ...(auth.systemPreamble ? { systemPreamble: auth.systemPreamble } : {}),
    // The Codex backend refuses a request with max_output_tokens (other agents strip it too).
    ...(setting.id === "chatgpt" ? { sendOutputCap: false } : {}),
  };
}
