import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * Libraries most runs never need (YAML for specs and skills, cron parsing for schedules) are loaded on
 * first use instead of at start: every `relm` command pays for what it imports.
 */
export function yamlLib(): typeof import("yaml") {
  return require("yaml") as typeof import("yaml");
}

export function cronLib(): typeof import("croner") {
  return require("croner") as typeof import("croner");
}
