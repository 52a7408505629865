// What every subscription provider offers the sign-in and the requests: its flows, refresh and headers.
import type { SubscriptionId } from "../../config/subscriptions.js";

/** A subscription's credentials as saved in $RELM_HOME/auth.json. */
export interface Tokens {
  /** Sent to the provider's API with each request. */
  access: string;
  /** Gets a new access token (for Copilot: the GitHub token that mints Copilot tokens). */
  refresh: string;
  /** Epoch ms when `access` runs out. */
  expires: number;
  /** ChatGPT: the account the Codex backend bills (from the token's claims). */
  accountId?: string;
}

/** The browser sign-in: authorization code with PKCE and a callback on this machine. */
interface BrowserFlow {
  /** The port and path of the redirect URI the provider has registered for this client. */
  callbackPort: number;
  callbackPath: string;
  authorizeUrl(params: { challenge: string; state: string; redirectUri: string }): string;
  exchange(params: { code: string; verifier: string; state: string; redirectUri: string }): Promise<Tokens>;
}

export interface DeviceStart {
  /** Where the person types the code. */
  verificationUrl: string;
  userCode: string;
  intervalMs: number;
  /** Epoch ms after which polling stops. */
  deadline: number;
  /** Provider data the poll needs (device code, device auth id). */
  handle: Record<string, string>;
}

export type DevicePoll = { tokens: Tokens } | { pending: true; slowDown?: boolean };

/** The device-code sign-in, for a browser on another machine (ssh) or a provider with nothing else. */
interface DeviceFlow {
  start(): Promise<DeviceStart>;
  poll(start: DeviceStart): Promise<DevicePoll>;
}

/** Per request: what the auth headers may depend on. */
export interface HeaderContext {
  /** The role of the last message: Copilot counts a premium request only for a person's own turn. */
  lastRole?: "user" | "assistant" | "tool";
}

export interface SubscriptionProvider {
  id: SubscriptionId;
  browser?: BrowserFlow;
  device?: DeviceFlow;
  /** New tokens from the refresh token; an OAuthError with signedOut when it was refused. */
  refresh(tokens: Tokens): Promise<Tokens>;
  /** The headers that authenticate an API request with `tokens` (they replace the API key's). */
  apiHeaders(tokens: Tokens, context: HeaderContext): Record<string, string>;
  /** System text the API requires before the agent's own (Claude's subscription API checks for it). */
  systemPreamble?: string;
}
