// What a session signed in with a subscription adds: its tokens to the secrets every output is redacted of,
// and, with --max-cost, the note that spend is counted at API list prices.
import type { BudgetLimits } from "../agent/budget.js";
import type { ResolvedConfig } from "../config/config.js";
import { subscriptionInfo } from "../config/subscriptions.js";
import { subscriptionAuth } from "../llm/auth/client-options.js";

/** The subscription's current tokens (a model printing auth.json must not put them in the journal). */
export function subscriptionSecrets(config: ResolvedConfig): string[] {
  const setting = config.model.subscription;
  return setting ? subscriptionAuth(config.home, setting).secrets() : [];
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
