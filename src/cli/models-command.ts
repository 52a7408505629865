// `relm models [--provider P] [--all] [--json]`: what the bundled model catalog says about a provider's
// models (window, output limit, prices, capabilities), with config.json's prices and contextWindows
// applied the way a session applies them. Nothing is fetched: the endpoint's own list is `/model` in
// the terminal UI and the login picker.

import type { Command } from "commander";
import { type ResolvedConfig, resolveConfig } from "../config/config.js";
import { UsageError } from "../config/errors.js";
import { findPreset, presetNames, unknownProvider } from "../config/presets.js";
import { type CatalogModel, catalogModels, catalogSections, catalogSource } from "../llm/catalog/index.js";
import type { Price } from "../llm/types.js";
import { EXIT } from "./exit-codes.js";
import type { RunIo } from "./run.js";
import { table } from "./table.js";

type SetExit = (code: number) => void;

interface ModelsFlags {
  provider?: string;
  all?: boolean;
  json?: boolean;
}

export function registerModelsCommand(program: Command, io: RunIo, setExit: SetExit): void {
  program
    .command("models")
    .description("the models relm knows for a provider: context window, output limit, prices, capabilities")
    .option(
      "--provider <name>",
      "a provider (openai, anthropic, openrouter, gemini, ...); default: the configured one",
    )
    .option("--all", "every provider in the catalog")
    .option("--json", "one JSON object per model")
    .addHelpText(
      "after",
      [
        "",
        "Prices are USD per million tokens: input, output, cached input (read from the prompt cache) and",
        "cache write. Capabilities: T tools, I images, R reasoning. The catalog is bundled with relm (no",
        "network); config.json's prices and contextWindows override it (marked *). See docs/providers.md.",
      ].join("\n"),
    )
    .action(async (flags: ModelsFlags) => setExit(modelsAction(io, flags)));
}

interface ListedModel extends CatalogModel {
  /** config.json's prices or contextWindows changed what the catalog says. */
  configured: boolean;
}

/** The catalog sections to list: the flag's provider, every one, or the configured provider's. */
function sectionsFor(
  flags: ModelsFlags,
  config: ResolvedConfig | undefined,
): { sections: string[]; said: string } {
  // One would be dropped without a word (a mistyped --provider too).
  if (flags.all && flags.provider) throw new UsageError("give --provider NAME or --all, not both");
  if (flags.all) return { sections: catalogSections(), said: "all providers" };
  const name = flags.provider ?? config?.model.preset ?? "openai";
  const preset = findPreset(name);
  if (preset) return { sections: preset.catalog ? [preset.catalog] : [], said: preset.name };
  // A catalog section that is no preset (openai-codex, github-copilot, moonshotai, ...).
  if (catalogSections().includes(name)) return { sections: [name], said: name };
  const known = [...new Set([...presetNames(), ...catalogSections()])];
  throw new UsageError(unknownProvider("--provider", name, known));
}

function withConfig(model: CatalogModel, config: ResolvedConfig | undefined): ListedModel {
  const price = config?.prices[model.id];
  const window = config?.compaction.windows[model.id];
  if (!price && window === undefined) return { ...model, configured: false };
  return {
    ...model,
    ...(price ? { price } : {}),
    ...(window !== undefined ? { contextWindow: window, inputLimit: undefined } : {}),
    configured: true,
  };
}

function modelsAction(io: RunIo, flags: ModelsFlags): number {
  // The configuration decides the default provider and the overrides; with --provider or --all a
  // broken or missing one is not needed for the catalog itself.
  let config: ResolvedConfig | undefined;
  try {
    config = resolveConfig(io.env);
  } catch (error) {
    if (!flags.provider && !flags.all) throw error;
  }
  const { sections, said } = sectionsFor(flags, config);
  const models = sections.flatMap((s) => catalogModels(s)).map((m) => withConfig(m, config));
  if (flags.json) {
    for (const m of models) io.stdout.write(`${JSON.stringify(m)}\n`);
    return EXIT.done;
  }
  const { source, generated } = catalogSource();
  if (models.length === 0) {
    io.stdout.write(
      `the catalog lists no models for ${said}: relm uses the model name you give it; set prices and ` +
        `contextWindows in config.json for cost and compaction (docs/providers.md)\n`,
    );
    return EXIT.done;
  }
  const rows = [["MODEL", "WINDOW", "OUTPUT", "INPUT", "OUTPUT$", "CACHED", "CACHE-W", "CAPS"]];
  for (const m of models) {
    const id = sections.length > 1 ? `${m.section}/${m.id}` : m.id;
    rows.push([
      m.configured ? `${id} *` : id,
      tokens(m.inputLimit ?? m.contextWindow),
      tokens(m.maxOutput),
      usd(m.price, "input"),
      usd(m.price, "output"),
      usd(m.price, "cachedInput"),
      usd(m.price, "cacheWrite"),
      `${m.tools ? "T" : "-"}${m.images ? "I" : "-"}${m.reasoning ? "R" : "-"}`,
    ]);
  }
  io.stdout.write(`${table(rows)}\n`);
  io.stdout.write(
    `${models.length} model(s) for ${said}; USD per million tokens; catalog: ${source}, ${generated}` +
      `${models.some((m) => m.configured) ? "; * from config.json" : ""}\n`,
  );
  return EXIT.done;
}

function tokens(n: number | undefined): string {
  if (n === undefined) return "-";
  return n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}

function usd(price: Price | null, key: keyof Price): string {
  const value = price?.[key];
  return value === undefined ? "-" : String(value);
}
