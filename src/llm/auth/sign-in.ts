// Signing in to a subscription: the browser flow (PKCE, local callback, or a pasted redirect) or the device
// code flow, then the tokens saved to $RELM_HOME/auth.json. Front ends supply the talking (SignInUi).
import { type SubscriptionId, subscriptionInfo } from "../../config/subscriptions.js";
import { sleep } from "../retry.js";
import { codeFromPaste, startCallbackServer } from "./callback.js";
import { OAuthError } from "./oauth-http.js";
import { openBrowser } from "./open.js";
import { createPkce, createState } from "./pkce.js";
import { subscriptionProvider } from "./providers.js";
import { storeTokens } from "./store.js";
import type { DeviceStart, Tokens } from "./types.js";

export type SignInMethod = "browser" | "device";

interface SignInUi {
  /** The page to visit; `opened` says whether a browser was started for it. */
  showUrl(url: string, opened: boolean, canPaste: boolean): void;
  showDeviceCode(url: string, code: string): void;
  /** Something the person pasted (a redirect URL or code); never resolves when nothing can be pasted. */
  pasted?(signal: AbortSignal): Promise<string>;
  note?(text: string): void;
}

interface SignInOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Moves the provider's OAuth endpoints (see oauthBaseOverride). */
  oauthBase?: string;
  method?: SignInMethod;
  ui: SignInUi;
  signal?: AbortSignal;
}

/** The methods a subscription offers, the preferred first. */
export function signInMethods(id: SubscriptionId): SignInMethod[] {
  const provider = subscriptionProvider(id);
  return [...(provider.browser ? ["browser" as const] : []), ...(provider.device ? ["device" as const] : [])];
}

/** Signs in and saves the tokens; rejects with a message for the person when it cannot. */
export async function signIn(id: SubscriptionId, options: SignInOptions): Promise<Tokens> {
  const provider = subscriptionProvider(id, options.oauthBase);
  const method = options.method ?? signInMethods(id)[0];
  const label = subscriptionInfo(id).label;
  let tokens: Tokens;
  if (method === "device") {
    if (!provider.device)
      throw new OAuthError(`${label} has no device-code sign-in; use the browser sign-in`);
    tokens = await deviceSignIn(provider.device, options);
  } else {
    if (!provider.browser) throw new OAuthError(`${label} signs in with a device code only`);
    tokens = await browserSignIn(provider.browser, options);
  }
  await storeTokens(options.home, id, tokens);
  return tokens;
}

function callbackPort(env: NodeJS.ProcessEnv, registered: number): number {
  const configured = env.RELM_OAUTH_CALLBACK_PORT?.trim();
  if (!configured) return registered;
  const port = Number(configured);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new OAuthError(`RELM_OAUTH_CALLBACK_PORT must be a port number, got "${configured}"`);
  }
  return port;
}

async function browserSignIn(
  flow: NonNullable<ReturnType<typeof subscriptionProvider>["browser"]>,
  options: SignInOptions,
): Promise<Tokens> {
  const { ui, env } = options;
  const pkce = createPkce();
  const state = createState();
  const port = callbackPort(env, flow.callbackPort);
  const server = await startCallbackServer(port, flow.callbackPath, state, (why) => ui.note?.(why));
  // With the port taken, the redirect still names it: the browser's failed page shows the URL to paste.
  const redirectUri = server?.redirectUri ?? `http://localhost:${port}${flow.callbackPath}`;
  if (!server) ui.note?.(`port ${port} is in use, so paste the address the browser ends on`);
  const url = flow.authorizeUrl({ challenge: pkce.challenge, state, redirectUri });
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const opened = openBrowser(url, env);
    ui.showUrl(url, opened, ui.pasted !== undefined);
    const waits: Promise<string>[] = [];
    if (server) waits.push(server.code);
    if (ui.pasted) waits.push(ui.pasted(stop.signal).then((text) => codeFromPaste(text, state)));
    waits.push(
      new Promise<string>((_, reject) => {
        if (stop.signal.aborted) reject(new OAuthError("sign-in cancelled"));
        stop.signal.addEventListener("abort", () => reject(new OAuthError("sign-in cancelled")), {
          once: true,
        });
      }),
    );
    const code = await Promise.race(waits);
    return await flow.exchange({ code, verifier: pkce.verifier, state, redirectUri });
  } finally {
    stop.abort();
    options.signal?.removeEventListener("abort", onAbort);
    server?.close();
  }
}

async function deviceSignIn(
  flow: NonNullable<ReturnType<typeof subscriptionProvider>["device"]>,
  options: SignInOptions,
): Promise<Tokens> {
  const start: DeviceStart = await flow.start();
  options.ui.showDeviceCode(start.verificationUrl, start.userCode);
  openBrowser(start.verificationUrl, options.env);
  let interval = start.intervalMs;
  while (Date.now() < start.deadline) {
    if (!(await sleep(interval, options.signal))) throw new OAuthError("sign-in cancelled");
    const answer = await flow.poll(start);
    if ("tokens" in answer) return answer.tokens;
    // RFC 8628: slow_down adds five seconds to the interval for good.
    if (answer.slowDown) interval += 5000;
  }
  throw new OAuthError("the device code expired before the sign-in was approved; run `relm login` again");
}
