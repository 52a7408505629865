// What a session signed in with a subscription adds: its tokens to the secrets every output is redacted of,
// and, with --max-cost, the note that spend is counted at API list prices.
import type { BudgetLimits } from "../agent/budget/budget.js";
import type { ResolvedConfig } from "../config/config.js";
import { subscriptionInfo } from "../config/subscriptions.js";
import { subscriptionAuth } from "../llm/auth/client-options.js";
import { authPath, savedTokens } from "../llm/auth/store.js";
import { type Check, check } from "./doctor/check.js";

/** The subscription's current tokens (a model printing auth.json must not put them in the journal). */
export function subscriptionSecrets(config: ResolvedConfig): string[] {
  const setting = config.model.subscription;
  return setting ? subscriptionAuth(config.home, setting).secrets() : [];
}

/**
 * Tokens the subscription gets later (a refresh) join `secrets`, the session's own list, which its journal
 * and snapshot checks read at each use.
 */
export function followSubscriptionSecrets(config: ResolvedConfig, secrets: string[]): void {
  const setting = config.model.subscription;
  if (!setting) return;
  subscriptionAuth(config.home, setting).onTokens((tokens) => {
    for (const value of [tokens.access, tokens.refresh]) {
      if (value.length >= 8 && !secrets.includes(value)) secrets.push(value);
    }
  });
}

export function subscriptionNotes(config: ResolvedConfig, limits: BudgetLimits): string[] {
  const setting = config.model.subscription;
  if (!setting || limits.maxCost === undefined) return [];
  const { label } = subscriptionInfo(setting.id);
  return [
    `--max-cost counts this ${label} session's tokens at API list prices (what they would cost with an ` +
      "API key); the subscription itself bills by its plan, not by these figures",
  ];
}

/** `relm doctor`'s line for a subscription: signed in (and until when) or what to run. */
export function subscriptionCheck(config: ResolvedConfig): Check | undefined {
  const setting = config.model.subscription;
  if (!setting) return undefined;
  const { label } = subscriptionInfo(setting.id);
  const tokens = savedTokens(config.home, setting.id);
  if (!tokens)
    return check("subscription", false, `${label}: not signed in; run \`relm login ${setting.id}\``);
  const minutes = Math.round((tokens.expires - Date.now()) / 60_000);
  const when =
    minutes > 0 ? `the access token is good for ${minutes} more min` : "the access token has expired";
  const detail = `${label}: signed in (${authPath(config.home)}); ${when} and is refreshed when needed`;
  return check("subscription", true, detail);
}
