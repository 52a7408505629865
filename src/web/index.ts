export { formatBytes, type GetOptions, type GetResult, getWithLimits, WebError } from "./http.js";
export { parseAllowWeb, refusal, type WebPolicy } from "./policy.js";
export { type Readable, readable } from "./readable.js";
export {
  DEFAULT_SEARCH_URL,
  NEEDS_KEY,
  parseResults,
  SEARCH_PROVIDERS,
  type SearchHit,
  type SearchProvider,
  type SearchSettings,
  webSearch,
} from "./search.js";
