// `relm doctor`'s line about the toolkit's web functions: the search provider search() uses (never its
// key), the hosts fetch() is limited to, and whether PDFs can become text (poppler's pdftotext).

import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { ResolvedConfig } from "../../config/config.js";
import { NEEDS_KEY } from "../../web/search.js";
import { type Check, check } from "./check.js";

export function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {}
  }
  return false;
}

export function webCheck(config: Pick<ResolvedConfig, "search" | "allowWeb">, env: NodeJS.ProcessEnv): Check {
  const s = config.search;
  const missingKey = s !== undefined && NEEDS_KEY[s.provider] && !s.apiKey;
  const search = !s
    ? "search(): no provider (relm login --search)"
    : `search(): ${s.provider}${s.baseUrl ? ` at ${s.baseUrl}` : ""}${s.apiKey ? ", key saved" : missingKey ? ", NO KEY (relm login --search)" : ""}`;
  const allow = config.allowWeb?.length ? `; fetch() limited to ${config.allowWeb.join(", ")}` : "";
  const pdf = onPath("pdftotext", env)
    ? "; PDFs as text (pdftotext)"
    : "; PDFs not as text (no pdftotext: apt install poppler-utils)";
  return check("web", missingKey ? "warn" : true, `${search}${allow}${pdf}`);
}
