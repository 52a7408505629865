import { readFileSync } from "node:fs";

let cached: string | undefined;

/** Read from package.json at run time so a release bump cannot leave a stale constant behind. */
export function relmVersion(): string {
  if (cached === undefined) {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    cached = pkg.version;
  }
  return cached;
}
