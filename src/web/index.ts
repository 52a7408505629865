export { getWithLimits, WebError } from "./http.js";
export { parseAllowWeb, refusal, type WebPolicy } from "./policy.js";
export { readable } from "./readable.js";
export { SEARCH_PROVIDERS, type SearchProvider, type SearchSettings, webSearch } from "./search.js";
