// The model catalog: context windows, output limits, prices and capabilities from models.json, which
// scripts/catalog.mjs generates from a maintained registry (models.dev data) and the build ships beside
// the code. Read on the first lookup, never at import: commands that price no model never pay for it.
// Configuration (prices, contextWindows, maxOutputTokens) overrides everything here.

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Price } from "../types.js";

export interface CatalogModel {
  /** The id as the catalog lists it (what the provider's API takes). */
  id: string;
  /** The catalog section it came from (a provider: openai, anthropic, openrouter, ...). */
  section: string;
  /** Prompt + answer tokens, as the provider states the window. */
  contextWindow?: number;
  /** Prompt tokens allowed, where the provider states a lower limit than the window (GPT-5). */
  inputLimit?: number;
  /** Output tokens one answer may have. */
  maxOutput?: number;
  /** USD per million tokens; null when the catalog has no price. */
  price: Price | null;
  tools: boolean;
  images: boolean;
  reasoning: boolean;
}

/** [context, maxOutput, input, output, cacheRead, cacheWrite, flags, inputLimit?] (see scripts/catalog.mjs). */
type Row = [
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number,
  number?,
];

interface CatalogFile {
  source: string;
  generated: string;
  providers: Record<string, Record<string, Row>>;
}

/**
 * Sections searched by name when the endpoint has no section of its own (a custom OpenAI-compatible URL):
 * the makers' own price lists, as relm's hand-kept table was.
 */
const MAKER_SECTIONS = ["openai", "anthropic", "google", "deepseek", "mistral", "xai"];

let loaded: CatalogFile | undefined;
let indexes: Map<string, SectionIndex> | undefined;

// Beside this module (src/, or dist/llm/catalog/), or from a bundled chunk in dist/cli/.
const CANDIDATES = ["./models.json", "../llm/catalog/models.json"];

/** Where models.json is read from; RELM_CATALOG names another file (tests, a newer catalog). */
function catalogPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RELM_CATALOG) return env.RELM_CATALOG;
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  return fileURLToPath(new URL(CANDIDATES[0] as string, import.meta.url));
}

function catalog(): CatalogFile {
  if (!loaded) {
    try {
      loaded = JSON.parse(readFileSync(catalogPath(), "utf8")) as CatalogFile;
    } catch {
      // A missing or broken catalog leaves every model unknown (unpriced, default window), as before it.
      loaded = { source: "none", generated: "", providers: {} };
    }
  }
  return loaded;
}

/** Where the catalog came from and when it was made, for `relm models` and `relm doctor`. */
export function catalogSource(): { source: string; generated: string } {
  const c = catalog();
  return { source: c.source, generated: c.generated };
}

export function catalogSections(): string[] {
  return Object.keys(catalog().providers);
}

function toModel(section: string, id: string, row: Row): CatalogModel {
  const [context, maxOutput, input, output, cacheRead, cacheWrite, flags, inputLimit] = row;
  const price: Price | null =
    input === null || output === null
      ? null
      : { input, output, cachedInput: cacheRead ?? undefined, cacheWrite: cacheWrite ?? undefined };
  return {
    id,
    section,
    // 0 and null mean unknown.
    contextWindow: context || undefined,
    inputLimit: inputLimit || undefined,
    maxOutput: maxOutput || undefined,
    price,
    tools: (flags & 1) !== 0,
    images: (flags & 2) !== 0,
    reasoning: (flags & 4) !== 0,
  };
}

/** Every model of one section, or of all, in catalog order. */
export function catalogModels(section?: string): CatalogModel[] {
  const out: CatalogModel[] = [];
  for (const [name, models] of Object.entries(catalog().providers)) {
    if (section !== undefined && name !== section) continue;
    for (const [id, row] of Object.entries(models)) out.push(toModel(name, id, row));
  }
  return out;
}

/** `openai/gpt-4.1` (OpenRouter) and `gpt-4-1` compare equal; dots and dashes are interchangeable. */
export function normalizeModelName(model: string): string {
  const name = model.toLowerCase().trim();
  return name.slice(name.lastIndexOf("/") + 1).replace(/\./g, "-");
}

/**
 * What may follow a known name and still be that model: dated snapshots (gpt-4o-2024-08-06,
 * claude-sonnet-4-5-20250929, gpt-4-0613), -latest, -v2, then a tag (qwen3:8b, model:free, name@001).
 * Nothing else: gpt-4-1106-preview is not gpt-4 and must not get its price.
 */
const SNAPSHOT_SUFFIX = /^(?:[-_](?:\d{4}-\d{2}-\d{2}|\d{4}|\d{6}|\d{8}|latest|v\d+))*(?:[:@].*)?$/;

function isSnapshotOf(name: string, known: string): boolean {
  return (
    name.length > known.length && name.startsWith(known) && SNAPSHOT_SUFFIX.test(name.slice(known.length))
  );
}

interface SectionIndex {
  exact: Map<string, string>;
  /** Normalised name -> id, longest first, for prefix matches. */
  normalized: [string, string][];
}

function sectionIndex(section: string): SectionIndex | undefined {
  indexes ??= new Map();
  let index = indexes.get(section);
  if (index) return index;
  const models = catalog().providers[section];
  if (!models) return undefined;
  const exact = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const id of Object.keys(models)) {
    exact.set(id.toLowerCase(), id);
    const name = normalizeModelName(id);
    // The shortest id wins a shared normalised name (openai/gpt-4o over openai/gpt-4o:extended).
    const held = byName.get(name);
    if (held === undefined || id.length < held.length) byName.set(name, id);
  }
  const normalized = [...byName.entries()].sort((a, b) => b[0].length - a[0].length);
  index = { exact, normalized };
  indexes.set(section, index);
  return index;
}

function matchIn(section: string, model: string): CatalogModel | undefined {
  const index = sectionIndex(section);
  const rows = catalog().providers[section];
  if (!index || !rows) return undefined;
  const wanted = model.trim();
  let id = index.exact.get(wanted.toLowerCase());
  if (id === undefined) {
    const name = normalizeModelName(wanted);
    id = index.normalized.find(([known]) => name === known || isSnapshotOf(name, known))?.[1];
  }
  return id === undefined ? undefined : toModel(section, id, rows[id] as Row);
}

export interface FindOptions {
  /** The endpoint's own section (a preset's), searched first. */
  section?: string;
  /**
   * Where to look when the section has no such model: `makers` (the makers' own lists: what a model
   * costs at its maker), `any` (every section: windows and limits are the model's, wherever it is
   * served), `none`. Default `makers`.
   */
  fallback?: "makers" | "any" | "none";
}

/**
 * The catalog's entry for `model`: exact id (any case), else the same name without a provider prefix
 * and with dots as dashes, else the longest known name of which it is a dated snapshot or tag; undefined
 * when the catalog does not know it.
 */
export function findModel(model: string, options: FindOptions = {}): CatalogModel | undefined {
  if (model.trim() === "") return undefined;
  // Asked per model call and per status poll, mostly for the same few names: remembered.
  const key = `${options.section ?? ""}\u0000${options.fallback ?? "makers"}\u0000${model}`;
  if (found.has(key)) return found.get(key);
  const result = search(model, options);
  if (found.size >= 1000) found.clear();
  found.set(key, result);
  return result;
}

const found = new Map<string, CatalogModel | undefined>();

function search(model: string, options: FindOptions): CatalogModel | undefined {
  const order: string[] = [];
  if (options.section) order.push(options.section);
  const fallback = options.fallback ?? "makers";
  if (fallback === "makers") order.push(...MAKER_SECTIONS);
  else if (fallback === "any") order.push(...MAKER_SECTIONS, ...catalogSections());
  for (const section of new Set(order)) {
    const found = matchIn(section, model);
    if (found) return found;
  }
  return undefined;
}
