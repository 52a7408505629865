export { OAuthError } from "./oauth-http.js";
export { challengeOf } from "./pkce.js";
export { SubscriptionAuth } from "./request-auth.js";
export { type SignInMethod, signIn, signInMethods } from "./sign-in.js";
export { authPath, readAuthFile, storeTokens } from "./store.js";
