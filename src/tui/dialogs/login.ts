// The provider picker (first launch, /login, `relm login` in a terminal): endpoint → key (masked) →
// model from the endpoint's own list → a one-token test request → config.json saved 0600. Esc goes back a
// step; Ctrl-C cancels the whole flow and nothing is written.
import { join } from "node:path";
import { baseUrlProblem } from "../../config/base-url.js";
import { type ConfigFile, readConfigFile } from "../../config/config.js";
import type { ProviderPreset } from "../../config/model-types.js";
import { PRESETS, presetBaseUrl } from "../../config/presets.js";
import { writePrivateJson } from "../../config/private-file.js";
import { listModels, testModel } from "../../llm/models.js";
import type { Provider } from "../../llm/types.js";
import type { AppControl } from "../app-api.js";
import { askText, type DialogHost, pickFrom, showBusy } from "./dialogs.js";
import {
  reachedBy,
  type SubscriptionLoginResult,
  subscriptionItems,
  subscriptionLoginFlow,
  subscriptionOf,
  testedLine,
} from "./login-subscription.js";

interface Endpoint {
  /** anthropic, openai, openrouter, ollama, custom, or another provider preset's name. */
  id: string;
  label: string;
  provider: Provider;
  baseUrl: string;
  keyEnv?: string;
  needsKey: boolean;
  /** The provider preset saved as config `provider` (its headers, query and catalog then apply). */
  preset?: string;
  /** The base URL is asked for (a local server's address, Azure's resource endpoint). */
  askUrl?: boolean;
}

/** The presets listed first, in this order; Ollama and a custom server come next, then the other presets. */
const FIRST = ["anthropic", "openai", "openrouter"];
/** Ollama has its own entry (the picker asks whether it runs); the Responses API is OpenAI's entry. */
const NOT_LISTED = new Set([...FIRST, "openai-responses", "ollama"]);

function presetEndpoint(p: ProviderPreset): Endpoint {
  return {
    id: p.name,
    label: p.label,
    provider: p.wire,
    baseUrl: p.baseUrl,
    ...(p.keyEnv[0] ? { keyEnv: p.keyEnv[0] } : {}),
    needsKey: !p.local,
    preset: p.name,
    ...(p.local || p.baseUrlFrom ? { askUrl: true } : {}),
  };
}

/** As a subscription's sign-in ends (saved, with what its test request found, or interrupted), or cancelled. */
type LoginResult = Exclude<SubscriptionLoginResult, { status: "back" }> | { status: "cancelled" };

function endpoints(env: NodeJS.ProcessEnv): Endpoint[] {
  // OLLAMA_HOST read as the preset reads it; unset, Ollama's own default address.
  const ollama = env.OLLAMA_HOST?.trim()
    ? presetBaseUrl("ollama", env.OLLAMA_HOST)
    : "http://127.0.0.1:11434/v1";
  return [
    ...FIRST.flatMap((name) => PRESETS.filter((p) => p.name === name)).map(presetEndpoint),
    // Saved as the ollama preset the entry shows (a local server: no price looked up), like every entry.
    ...PRESETS.filter((p) => p.name === "ollama").map((p) => ({ ...presetEndpoint(p), baseUrl: ollama })),
    { id: "custom", label: "OpenAI-compatible server", provider: "openai", baseUrl: "", needsKey: false },
    ...PRESETS.filter((p) => !NOT_LISTED.has(p.name)).map(presetEndpoint),
  ];
}

class Cancelled extends Error {}

/** Says what went wrong in a box of its own, until Enter or Esc closes it. */
async function tell(dialogs: DialogHost, title: string, text: string, hint = "enter or esc to go back") {
  await askText(dialogs, { title, text, hint });
}

/**
 * Runs the flow in `host`'s terminal. `home` is $RELM_HOME. `intro` opens the provider list's text (why
 * the picker is shown): it goes with the picker, and leaves nothing behind once a model is saved.
 */
export async function loginFlow(
  host: DialogHost,
  env: NodeJS.ProcessEnv,
  home: string,
  intro?: string,
): Promise<LoginResult> {
  const path = join(home, "config.json");
  let existing: ConfigFile;
  try {
    existing = readConfigFile(path) ?? {};
  } catch {
    existing = {};
  }
  let interrupted = false;
  const dialogs: DialogHost = { ...host, onCtrlC: () => (interrupted = true) };
  const check = <T>(value: T | undefined): T => {
    if (interrupted) throw new Cancelled("interrupted");
    if (value === undefined) throw new Cancelled("back");
    return value;
  };
  const all = endpoints(env);
  const current =
    all.find((e) => e.id !== "custom" && existing.baseUrl === e.baseUrl) ??
    (existing.baseUrl ? all.find((e) => e.id === "custom") : undefined);
  // Ollama answers in milliseconds when it runs; the picker says whether it does.
  const ollama = all.find((e) => e.id === "ollama") as Endpoint;
  const probe = await Promise.race([
    listModels("openai", ollama.baseUrl, undefined, { timeoutMs: 800 }),
    new Promise<undefined>((r) => setTimeout(r, 900)),
  ]);

  type Step = "endpoint" | "url" | "key" | "model" | "test";
  let step: Step = "endpoint";
  // Where Esc goes: the steps taken so far.
  const trail: Step[] = [];
  const go = (next: Step) => {
    // A failed test's menu is not a place to come back to.
    if (step !== "test") trail.push(step);
    step = next;
  };
  let endpoint: Endpoint | undefined;
  let baseUrl = "";
  let key: { value?: string; source: "typed" | "env" | "saved" | "none" } = { source: "none" };
  let model = "";
  for (;;) {
    try {
      if (step === "endpoint") {
        const items = all.map((e) => {
          let description = e.baseUrl;
          if (e.keyEnv && env[e.keyEnv]) description += ` · ${e.keyEnv} is set`;
          if (e.id === "ollama") {
            description =
              probe && "ids" in probe
                ? `${e.baseUrl} · running, ${probe.ids.length} model(s)`
                : `${e.baseUrl} · not answering`;
          }
          if (e.id === "custom") description = "vLLM, LM Studio, llama.cpp…: you give the URL";
          return { value: e.id, label: e.label, description };
        });
        // The plans people already pay for, after the five main entries (login-subscription.ts).
        items.splice(items.findIndex((i) => i.value === "custom") + 1, 0, ...subscriptionItems(home));
        const choice = await pickFrom(dialogs, {
          title: "Choose a model provider",
          text: `${intro ? `${intro}\n` : ""}Sign in with a subscription, or use an API key (kept in $RELM_HOME/config.json, mode 0600). Neither is ever shown to the model.`,
          items,
          initial: endpoint?.id ?? current?.id,
          filterable: false,
        });
        if (interrupted) return { status: "interrupted" };
        if (choice === undefined) return { status: "cancelled" };
        const subscription = subscriptionOf(choice);
        if (subscription) {
          const signed = await subscriptionLoginFlow(
            dialogs,
            env,
            home,
            subscription,
            existing,
            () => interrupted,
          );
          if (signed.status !== "back") return signed;
          if (signed.problem) {
            await tell(dialogs, "Sign-in failed", signed.problem);
            if (interrupted) return { status: "interrupted" };
          }
          continue;
        }
        endpoint = all.find((e) => e.id === choice) as Endpoint;
        baseUrl = endpoint.baseUrl;
        go(endpoint.id === "custom" || endpoint.id === "ollama" || endpoint.askUrl ? "url" : "key");
        continue;
      }
      const ep = endpoint as Endpoint;
      if (step === "url") {
        const initial =
          ep.id === "ollama" || ep.askUrl
            ? ep.baseUrl
            : current?.id === "custom"
              ? existing.baseUrl
              : "http://localhost:8000/v1";
        const url = check(
          await askText(dialogs, {
            title: ep.id === "ollama" ? "Ollama's address" : "The server's base URL",
            text: "The OpenAI-compatible base URL, usually ending in /v1.",
            initial,
          }),
        ).trim();
        const problem = /\s/.test(url) ? "must not contain spaces" : baseUrlProblem(url);
        if (problem) {
          await tell(dialogs, "Not a base URL", `"${url}" ${problem}`, "enter or esc to try again");
          if (interrupted) return { status: "interrupted" };
          continue;
        }
        baseUrl = presetBaseUrl(ep.preset, url);
        go(ep.id === "ollama" ? "model" : "key");
        continue;
      }
      if (step === "key") {
        key = await chooseKey(dialogs, ep, baseUrl, existing, env, check);
        go("model");
        continue;
      }
      if (step === "model") {
        model = await chooseModel(dialogs, ep, baseUrl, key.value, existing, check);
        go("test");
        continue;
      }
      const busy = showBusy(dialogs, "Checking", `Sending a one-token request to ${model} at ${baseUrl}…`);
      const problem = await testModel({
        provider: ep.provider,
        baseUrl,
        apiKey: key.value,
        model,
        ...(ep.preset ? { preset: ep.preset } : {}),
      });
      busy.hide();
      if (interrupted) return { status: "interrupted" };
      if (problem) {
        const next = check(
          await pickFrom(dialogs, {
            title: "The test request failed",
            text: problem,
            items: [
              { value: "model", label: "Choose another model" },
              ...(ep.id === "ollama" ? [] : [{ value: "key", label: "Enter the key again" }]),
              { value: "save", label: "Save anyway" },
              { value: "endpoint", label: "Start over" },
            ],
            filterable: false,
          }),
        );
        if (next !== "save") {
          go(next as Step);
          continue;
        }
      }
      const config: ConfigFile = { ...existing, provider: ep.preset ?? ep.provider, baseUrl, model };
      if (key.source === "typed") config.apiKey = key.value;
      else if (key.source !== "saved") delete config.apiKey;
      writePrivateJson(path, config);
      return { status: "saved", path, config, tested: testedLine(problem, model) };
    } catch (error) {
      if (!(error instanceof Cancelled)) throw error;
      if (interrupted) return { status: "interrupted" };
      // Esc: one step back (the failed test's menu goes back to the model).
      step = trail.pop() ?? "endpoint";
    }
  }
}

async function chooseKey(
  dialogs: DialogHost,
  ep: Endpoint,
  baseUrl: string,
  existing: ConfigFile,
  env: NodeJS.ProcessEnv,
  check: <T>(v: T | undefined) => T,
): Promise<{ value?: string; source: "typed" | "env" | "saved" | "none" }> {
  const fromEnv = ep.keyEnv ? env[ep.keyEnv]?.trim() : undefined;
  const saved = existing.baseUrl === baseUrl ? existing.apiKey : undefined;
  if (ep.id === "ollama") return { source: "none" };
  const lines = [
    `Paste the API key for ${ep.id === "custom" ? baseUrl : ep.label}. It is typed masked and sent only to ${new URL(baseUrl).host}.`,
  ];
  if (fromEnv)
    lines.push(`Enter alone uses $${ep.keyEnv} from your environment (not copied into the config).`);
  else if (saved) lines.push("Enter alone keeps the key already saved.");
  else if (!ep.needsKey) lines.push("Enter alone if the server needs no key.");
  const typed = check(
    await askText(dialogs, { title: "API key", text: lines.join("\n"), mask: true }),
  ).trim();
  if (typed) return { value: typed, source: "typed" };
  if (fromEnv) return { value: fromEnv, source: "env" };
  if (saved) return { value: saved, source: "saved" };
  if (ep.needsKey) {
    await tell(dialogs, "A key is needed", `${ep.label} needs an API key.`);
    throw new Cancelled("back");
  }
  return { source: "none" };
}

async function chooseModel(
  dialogs: DialogHost,
  ep: Endpoint,
  baseUrl: string,
  apiKey: string | undefined,
  existing: ConfigFile,
  check: <T>(v: T | undefined) => T,
): Promise<string> {
  const busy = showBusy(dialogs, "Models", `Asking ${baseUrl} for its models…`);
  const listed = await listModels(ep.provider, baseUrl, apiKey, { preset: ep.preset });
  busy.hide();
  const initial = existing.baseUrl === baseUrl ? existing.model : undefined;
  const TYPE = "\u0000type";
  if ("ids" in listed && listed.ids.length > 0) {
    const items = [
      ...listed.ids.map((id) => ({ value: id, label: id })),
      { value: TYPE, label: "✎ type a model name" },
    ];
    const picked = check(
      await pickFrom(dialogs, {
        title: `Choose a model (${listed.ids.length} at ${new URL(baseUrl).host})`,
        items,
        initial,
        filterable: true,
      }),
    );
    if (picked !== TYPE) return picked;
  }
  const text =
    "error" in listed
      ? `Could not list the models: ${listed.error}`
      : "Type the model's name as the endpoint knows it.";
  for (;;) {
    const typed = check(await askText(dialogs, { title: "Model name", text, initial })).trim();
    if (typed) return typed;
  }
}

/** After a save: the configuration read again, and what was saved and what its test request found. */
export function sayLoginSaved(app: AppControl, result: LoginResult & { status: "saved" }): void {
  app.reloadConfigured();
  app.note(app.theme.ok(`✓ saved ${result.path}: ${result.config.model} ${reachedBy(result.config)}`));
  app.note(app.theme.dim(`  ${result.tested}`));
}

/** /login inside a session: the flow, then what changed for this session and the next ones. */
export async function loginInSession(app: AppControl): Promise<void> {
  const result = await loginFlow(app.dialogs, app.env, app.home);
  if (result.status !== "saved") {
    app.note(app.theme.dim("login cancelled; nothing was written"));
    return;
  }
  sayLoginSaved(app, result);
  if (app.link.live && app.info && result.config.model && app.info.model !== result.config.model) {
    app.note(
      app.theme.dim(
        "this session keeps its endpoint; /model switches its model, /new starts one with the new settings",
      ),
    );
  }
}
