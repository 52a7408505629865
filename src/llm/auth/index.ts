export { subscriptionAuth, subscriptionClientOptions } from "./client-options.js";
export { OAuthError } from "./oauth-http.js";
export { challengeOf } from "./pkce.js";
export { REFRESH_MARGIN_MS, SubscriptionAuth } from "./request-auth.js";
export { type SignInMethod, type SignInUi, signIn, signInMethods } from "./sign-in.js";
export { authPath, readAuthFile, savedTokens, storeTokens } from "./store.js";
export type { Tokens } from "./types.js";
