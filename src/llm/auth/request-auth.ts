// A subscription's credentials for the model client: fresh headers for every try (refreshed when under
// five minutes remain), one renewal after a 401, and a clear "run relm login" when nothing more can help.
import { type SubscriptionId, subscriptionInfo } from "../../config/subscriptions.js";
import type { AuthContext } from "../types.js";
import { OAuthError } from "./oauth-http.js";
import { subscriptionProvider } from "./providers.js";
import { savedTokens, withAuthLock, writeTokensLocked } from "./store.js";
import type { HeaderContext, SubscriptionProvider, Tokens } from "./types.js";

/** A token with less than this left is refreshed before it is sent. */
const REFRESH_MARGIN_MS = 5 * 60_000;

export class SubscriptionAuth {
  readonly systemPreamble?: string;
  private readonly provider: SubscriptionProvider;
  private readonly label: string;
  private tokens?: Tokens;
  /** Every token this client has held, for redaction. */
  private readonly seen = new Set<string>();
  private refreshing?: Promise<Tokens>;
  private readonly listeners: ((tokens: Tokens) => void)[] = [];

  constructor(
    private readonly home: string,
    private readonly id: SubscriptionId,
    oauthBase?: string,
  ) {
    this.provider = subscriptionProvider(id, oauthBase);
    this.label = subscriptionInfo(id).label;
    this.systemPreamble = this.provider.systemPreamble;
  }

  /**
   * ClientOptions.auth: the headers for one try, the token refreshed first when it is about to run out
   * or (`refresh`) the server just refused it. Rejects with what the person must do when it cannot.
   */
  readonly headers = async (context: AuthContext = { refresh: false }): Promise<Record<string, string>> => {
    // After a 401, the token the server refused: the one held, or (nothing sent yet by this client) the saved one.
    const tokens = context.refresh
      ? await this.refresh(this.tokens?.access ?? savedTokens(this.home, this.id)?.access)
      : await this.fresh();
    const wanted: HeaderContext = { lastRole: context.lastRole };
    return this.provider.apiHeaders(tokens, wanted);
  };

  secrets(): string[] {
    if (!this.tokens) {
      // Before the first request: what the file holds, so early errors are redacted too.
      const saved = savedTokens(this.home, this.id);
      if (saved) this.remember(saved);
    }
    return [...this.seen];
  }

  /** Called with every token this client starts to use after the first (refreshes, another host's). */
  onTokens(listener: (tokens: Tokens) => void): void {
    this.listeners.push(listener);
  }

  private remember(tokens: Tokens): Tokens {
    const known = this.seen.has(tokens.access) && this.seen.has(tokens.refresh);
    for (const secret of [tokens.access, tokens.refresh]) if (secret) this.seen.add(secret);
    if (!known) for (const listener of this.listeners) listener(tokens);
    return tokens;
  }

  private signedOut(): OAuthError {
    return new OAuthError(`not signed in to ${this.label}; run \`relm login ${this.id}\``, true);
  }

  private async fresh(): Promise<Tokens> {
    if (!this.tokens) {
      const saved = savedTokens(this.home, this.id);
      if (!saved) throw this.signedOut();
      this.tokens = this.remember(saved);
    }
    if (this.tokens.expires - Date.now() > REFRESH_MARGIN_MS) return this.tokens;
    return this.refresh(this.tokens.access);
  }

  /**
   * New tokens, under the file lock: when another process refreshed since `stale` was read, its tokens
   * are taken as they are (the refresh token it used may be spent); otherwise this one refreshes.
   */
  private refresh(stale: string | undefined): Promise<Tokens> {
    this.refreshing ??= withAuthLock(this.home, async () => {
      const saved = savedTokens(this.home, this.id);
      if (!saved) throw this.signedOut();
      if (saved.access !== stale && saved.expires - Date.now() > REFRESH_MARGIN_MS) return saved;
      let next: Tokens;
      try {
        next = await this.provider.refresh(saved);
      } catch (error) {
        if (error instanceof OAuthError && error.signedOut) {
          throw new OAuthError(
            `the ${this.label} sign-in has expired or was revoked (${error.message}); ` +
              `run \`relm login ${this.id}\` to sign in again`,
            true,
          );
        }
        throw error;
      }
      writeTokensLocked(this.home, this.id, next);
      return next;
    })
      .then((tokens) => {
        this.tokens = this.remember(tokens);
        return tokens;
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }
}
