// The picker's subscription entries: sign in to Claude Pro/Max, ChatGPT Plus/Pro or GitHub Copilot from
// the terminal UI (the page opened in a browser, or a device code; a pasted redirect accepted), then a
// model, then config.json saved with the subscription. The tokens go to auth.json, never config.json.
import { join } from "node:path";
import type { ConfigFile } from "../../config/config.js";
import { writePrivateJson } from "../../config/private-file.js";
import {
  oauthBaseOverride,
  SUBSCRIPTIONS,
  type SubscriptionId,
  subscriptionInfo,
} from "../../config/subscriptions.js";
import { subscriptionClientOptions } from "../../llm/auth/client-options.js";
import { readAuthFile, type SignInMethod, signIn, signInMethods } from "../../llm/auth/index.js";
import { testModel } from "../../llm/models.js";
import { askText, type DialogHost, pickFrom, showBusy } from "./dialogs.js";

const PREFIX = "subscription:";

/** The picker's items for the subscriptions, shown before the API-key providers. */
export function subscriptionItems(home: string): { value: string; label: string; description: string }[] {
  const signedIn = readAuthFile(home).subscriptions;
  return SUBSCRIPTIONS.map((s) => ({
    value: `${PREFIX}${s.id}`,
    // No longer than the other labels: the list's description column keeps its width.
    label: s.label,
    description: `subscription${signedIn[s.id] ? " (signed in)" : ""} · ${s.description}`,
  }));
}

export function subscriptionOf(choice: string): SubscriptionId | undefined {
  return choice.startsWith(PREFIX) ? (choice.slice(PREFIX.length) as SubscriptionId) : undefined;
}

export type SubscriptionLoginResult =
  /** `tested`: what the one-token test request found, said with the save. */
  | { status: "saved"; path: string; config: ConfigFile; tested: string }
  | { status: "interrupted" }
  | { status: "back"; problem?: string };

/** Sign-in, model, save. "back" returns to the provider list (Esc, or a failed sign-in, said first). */
export async function subscriptionLoginFlow(
  dialogs: DialogHost,
  env: NodeJS.ProcessEnv,
  home: string,
  id: SubscriptionId,
  existing: ConfigFile,
  interrupted: () => boolean,
): Promise<SubscriptionLoginResult> {
  const info = subscriptionInfo(id);
  const methods = signInMethods(id);
  let method: SignInMethod = methods[0] as SignInMethod;
  if (methods.length > 1) {
    const picked = await pickFrom(dialogs, {
      title: `Sign in to ${info.label}`,
      items: [
        {
          value: "browser",
          label: "With the browser on this machine",
          description: "a page opens; sign in there",
        },
        {
          value: "device",
          label: "With a code, on any device",
          description: "for ssh, or a browser elsewhere",
        },
      ],
      filterable: false,
    });
    if (interrupted()) return { status: "interrupted" };
    if (picked === undefined) return { status: "back" };
    method = picked as SignInMethod;
  }
  const cancel = new AbortController();
  const settled = new AbortController();
  let waiting: Promise<string | undefined> | undefined;
  const wait = (title: string, text: string) => {
    waiting = askText(dialogs, {
      title,
      text,
      hint: "enter a pasted address · esc cancels",
      signal: settled.signal,
    });
    waiting.then((value) => {
      if (value === undefined && !settled.signal.aborted) cancel.abort();
    });
    return waiting;
  };
  try {
    await signIn(id, {
      home,
      env,
      oauthBase: oauthBaseOverride(id, env, existing.oauthUrls),
      method,
      signal: cancel.signal,
      ui: {
        showUrl(url, opened) {
          const lead = opened ? "A browser opened at this page" : "Open this page in a browser";
          wait(
            `Sign in to ${info.label}`,
            `${lead}:\n\n${url}\n\nrelm is waiting for the browser. If it runs on another machine, sign in there and paste the address it ends on (or the code it shows) here.`,
          );
        },
        showDeviceCode(url, code) {
          wait(
            `Sign in to ${info.label}`,
            `Open ${url} on any device and enter the code\n\n    ${code}\n\nrelm is waiting for the approval.`,
          );
        },
        pasted: async (signal) => {
          for (;;) {
            const value = await waiting;
            if (signal.aborted || value === undefined) return new Promise<string>(() => {});
            if (value.trim()) return value;
            waiting = askText(dialogs, {
              title: `Sign in to ${info.label}`,
              text: "Paste the address or code.",
              signal: settled.signal,
            });
          }
        },
      },
    });
  } catch (error) {
    settled.abort();
    if (interrupted()) return { status: "interrupted" };
    if (cancel.signal.aborted) return { status: "back" };
    return { status: "back", problem: (error as Error).message };
  }
  settled.abort();
  const TYPE = "\u0000type";
  const current = existing.subscription === id ? existing.model : undefined;
  const model = await pickFrom(dialogs, {
    title: `Choose a model (${info.label})`,
    items: [
      ...info.models.map((m) => ({ value: m, label: m })),
      { value: TYPE, label: "✎ type a model name" },
    ],
    initial: current ?? info.models[0],
    filterable: false,
  });
  if (interrupted()) return { status: "interrupted" };
  let chosen = model;
  if (chosen === TYPE) chosen = (await askText(dialogs, { title: "Model name", initial: current }))?.trim();
  if (interrupted()) return { status: "interrupted" };
  if (!chosen) return { status: "back" };
  const path = join(home, "config.json");
  const config: ConfigFile = { ...existing, subscription: id, model: chosen };
  writePrivateJson(path, config);
  // Does the model answer with this sign-in? Said with the save, as for a key (saved either way: the
  // sign-in itself worked, and a plan may lack one model while having others).
  const busy = showBusy(dialogs, "Checking", `Sending a one-token request to ${chosen}…`);
  const setting = { id, oauthBase: oauthBaseOverride(id, env, existing.oauthUrls) };
  const problem = await testModel({
    provider: info.wire,
    // An explicit base URL wins over the subscription's API, as in a session (config/subscription-config.ts).
    baseUrl: (env.RELM_BASE_URL?.trim() || info.apiBase).replace(/\/+$/, ""),
    model: chosen,
    signIn: subscriptionClientOptions(home, setting),
  });
  busy.hide();
  return { status: "saved", path, config, tested: testedLine(problem, chosen) };
}

/** What a save's one-token test request to `model` found (the whole reason: cut to a line, the endpoint's own words at the end were lost). */
export function testedLine(problem: string | undefined, model: string): string {
  return problem
    ? `saved although the test request failed: ${problem.replace(/\s+/g, " ").trim()}`
    : `a one-token test request to ${model} answered`;
}

/** How a saved config reaches its model, for the confirmation line: the endpoint, or the subscription. */
export function reachedBy(config: ConfigFile): string {
  const id = config.subscription;
  return id && id !== "none"
    ? `with your ${subscriptionInfo(id).label} subscription`
    : `at ${config.baseUrl}`;
}
