// `relm login` without the full-screen picker: scripted (`--api-key-stdin`, or stdin not a terminal),
// or prompted line by line where the UI cannot be drawn (TERM=dumb, RELM_NO_TUI=1). Either way the
// current settings are the defaults, a missing model is refused before any key is asked for, and the
// key is never echoed.

import { text } from "node:stream/consumers";
import { apiKeyProblem } from "../../config/api-key.js";
import { baseUrlProblem } from "../../config/base-url.js";
import { type ConfigFile, type ConfigFlags, readConfigFile, relmHomeFrom } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import {
  findPreset,
  PRESETS as PROVIDER_PRESETS,
  presetBaseUrl,
  unknownProvider,
} from "../../config/presets.js";
import { writePrivateJson } from "../../config/private-file.js";
import { SUBSCRIPTIONS, type SubscriptionId } from "../../config/subscriptions.js";
import { EXIT } from "../exit-codes.js";
import { cancelled, Prompt, QuestionCancelled } from "../question.js";
import type { RunIo } from "../run.js";

/**
 * The list, each entry a provider preset saved by its name as config.json's `provider` (so a local
 * server is priced as one, its variables apply): the local servers first, then OpenAI and Anthropic,
 * then the others in their order. Azure needs its resource's URL:
 * `relm login --provider azure --base-url https://NAME.openai.azure.com --model DEPLOYMENT`.
 */
const FIRST = ["ollama", "lmstudio", "vllm", "openai", "anthropic"];
const PRESETS: { name: string; provider: string; baseUrl: string; needsKey: boolean }[] = [
  ...FIRST.flatMap((name) => PROVIDER_PRESETS.filter((p) => p.name === name)),
  ...PROVIDER_PRESETS.filter((p) => ![...FIRST, "openai-responses", "azure"].includes(p.name)),
].map((p) => ({ name: p.label, provider: p.name, baseUrl: p.baseUrl, needsKey: !p.local }));

type LoginFlags = ConfigFlags & { apiKeyStdin?: boolean };

const NEEDS_MODEL = "login needs a model: --model NAME (the endpoint's name for it)";

/** A subscription picked from the list: its sign-in takes over (subscription.ts). */
class SubscriptionChosen extends Error {
  constructor(readonly id: SubscriptionId) {
    super(id);
  }
}

/** The endpoint from the flags, else the current one; a new provider without a URL gets its default. */
function endpointOf(flags: LoginFlags, existing: ConfigFile): { provider: string; baseUrl: string } {
  const current = existing.provider ?? "openai";
  const provider = flags.provider ?? current;
  const preset = findPreset(provider);
  if (!preset) throw new UsageError(unknownProvider("--provider", provider));
  const kept = provider === current ? existing.baseUrl : undefined;
  // Azure's resource endpoint given as --base-url becomes its deployment URL, as AZURE_OPENAI_ENDPOINT does.
  const given = flags.baseUrl === undefined ? undefined : presetBaseUrl(preset.name, flags.baseUrl);
  const problem = given === undefined ? undefined : baseUrlProblem(given);
  if (problem) throw new UsageError(`--base-url: base URL "${given}" ${problem}`);
  return { provider: preset.name, baseUrl: given ?? kept ?? preset.baseUrl };
}

/** A saved key goes only to the endpoint it was saved for: never sent to a new base URL unasked. */
function withKey(next: ConfigFile, existing: ConfigFile, key: string | undefined): ConfigFile {
  if (key) return { ...next, apiKey: key };
  if (next.baseUrl === existing.baseUrl) return next;
  const { apiKey: _dropped, ...rest } = next;
  return rest;
}

/** Writes provider, endpoint, model and key to $RELM_HOME/config.json, readable by the user only. */
export async function login(flags: LoginFlags, io: RunIo): Promise<number> {
  const home = relmHomeFrom(io.env);
  const path = `${home}/config.json`;
  const existing: ConfigFile = readConfigFile(path) ?? {};
  if (flags.model !== undefined && flags.model.trim() === "") throw new UsageError(NEEDS_MODEL);
  let next: ConfigFile;
  if (flags.apiKeyStdin || !process.stdin.isTTY) {
    next = await scripted(flags, existing);
  } else {
    try {
      next = await prompted(flags, existing, io);
    } catch (error) {
      if (error instanceof SubscriptionChosen) {
        const { subscriptionLogin } = await import("./subscription.js");
        return subscriptionLogin(error.id, { model: flags.model }, io);
      }
      if (!(error instanceof QuestionCancelled)) throw error;
      return cancelled(io.stderr, "login cancelled; nothing was saved");
    }
  }
  writePrivateJson(path, next);
  const keyNote = next.apiKey ? "" : ", no saved key";
  io.stdout.write(
    `saved ${path} (${next.model} via ${next.provider} at ${next.baseUrl}${keyNote}); check it with \`relm doctor\`\n`,
  );
  return EXIT.done;
}

async function scripted(flags: LoginFlags, existing: ConfigFile): Promise<ConfigFile> {
  // Checked before the key is read: a refused login must not have consumed it.
  const model = flags.model ?? existing.model;
  if (!model) throw new UsageError(`${NEEDS_MODEL}; without a terminal also --provider and --base-url`);
  const next = { ...existing, ...endpointOf(flags, existing), model };
  if (!flags.apiKeyStdin) return withKey(next, existing, undefined);
  const key = (await text(process.stdin)).trim();
  if (!key) throw new UsageError("--api-key-stdin: nothing arrived on stdin");
  const problem = apiKeyProblem(key);
  if (problem) throw new UsageError(`--api-key-stdin: ${problem}`);
  return withKey(next, existing, key);
}

async function prompted(flags: LoginFlags, existing: ConfigFile, io: RunIo): Promise<ConfigFile> {
  const prompt = new Prompt(io.stdout);
  try {
    let endpoint = endpointOf(flags, existing);
    let needsKey = true;
    if (!flags.provider && !flags.baseUrl) {
      for (const [i, p] of PRESETS.entries()) io.stdout.write(`  ${i + 1}. ${p.name}  ${p.baseUrl}\n`);
      for (const [i, sub] of SUBSCRIPTIONS.entries()) {
        io.stdout.write(`  ${PRESETS.length + i + 1}. ${sub.label} (subscription: relm login ${sub.id})\n`);
      }
      const current = existing.baseUrl ? `current: ${existing.baseUrl}` : "1";
      const answer = await prompt.ask("Endpoint (a number, or an OpenAI-compatible base URL)", current);
      const sub = /^\d+$/.test(answer) ? SUBSCRIPTIONS[Number(answer) - PRESETS.length - 1] : undefined;
      if (sub) throw new SubscriptionChosen(sub.id);
      const preset = /^\d+$/.test(answer) ? PRESETS[Number(answer) - 1] : undefined;
      if (preset) endpoint = { provider: preset.provider, baseUrl: preset.baseUrl };
      else if (/^https?:\/\//.test(answer)) {
        const problem = baseUrlProblem(answer);
        if (problem) throw new UsageError(`base URL "${answer}" ${problem}`);
        endpoint = { provider: "openai", baseUrl: answer };
      } else if (answer !== current)
        throw new UsageError(`"${answer}" is neither a number from the list nor an http(s) URL`);
      needsKey = PRESETS.find((p) => p.baseUrl === endpoint.baseUrl)?.needsKey ?? true;
    }
    const model = flags.model ?? (await prompt.ask("Model", existing.model));
    if (!model) throw new UsageError(`${NEEDS_MODEL}; type one at the prompt or pass --model`);
    const next = { ...existing, ...endpoint, model };
    if (!needsKey) return withKey(next, existing, undefined);
    const keep = existing.apiKey && endpoint.baseUrl === existing.baseUrl;
    const hint = keep ? "Enter keeps the saved one" : "Enter for none: the environment's key is used";
    const key = await prompt.secret(`API key (hidden; ${hint})`);
    const problem = key ? apiKeyProblem(key) : undefined;
    if (problem) throw new UsageError(problem);
    return withKey(next, existing, key);
  } finally {
    prompt.close();
  }
}
