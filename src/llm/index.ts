export { createModelClient } from "./client.js";
export { collectResponse, isModelError } from "./complete.js";
export { checkPricedForMaxCost, computeCost, guessAcceptsImages, lookupPrice } from "./pricing.js";
export type * from "./types.js";
