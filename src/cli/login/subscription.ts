// `relm login claude|chatgpt|copilot` in line mode: the browser sign-in (URL printed, a browser opened
// where there is one, a pasted redirect accepted) or the device code (`--device`, or over ssh), then the
// tokens saved to $RELM_HOME/auth.json and the subscription and model to config.json.
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type ConfigFile, type ConfigFlags, readConfigFile, relmHomeFrom } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import { writePrivateJson } from "../../config/private-file.js";
import {
  oauthBaseOverride,
  SUBSCRIPTIONS,
  type SubscriptionId,
  subscriptionInfo,
  subscriptionNamed,
} from "../../config/subscriptions.js";
import { authPath, OAuthError, type SignInMethod, signIn, signInMethods } from "../../llm/auth/index.js";
import { EXIT } from "../exit-codes.js";
import { cancelled } from "../question.js";
import type { RunIo } from "../run.js";

/**
 * --model and --device; the API-key sign-in's flags (--api-key-stdin, --provider, --base-url) are refused
 * here, not ignored (the sign-in would go on without them).
 */
type SubscriptionLoginFlags = Pick<ConfigFlags, "model" | "provider" | "baseUrl"> & {
  device?: boolean;
  apiKeyStdin?: boolean;
};

/** A flag of `relm login` without a name given to `relm login NAME`: a usage mistake, said by its name. */
function refuseKeyFlags(name: string, flags: SubscriptionLoginFlags): void {
  const given = [
    flags.apiKeyStdin ? "--api-key-stdin" : undefined,
    flags.provider !== undefined ? "--provider" : undefined,
    flags.baseUrl !== undefined ? "--base-url" : undefined,
  ].find((flag) => flag !== undefined);
  if (given) {
    throw new UsageError(
      `${given} is for an API key's endpoint (relm login ${given} ...); \`relm login ${name}\` signs in with the subscription: leave ${given} out`,
    );
  }
}

function parseSubscriptionName(name: string): SubscriptionId {
  const id = subscriptionNamed(name);
  if (!id) {
    const known = SUBSCRIPTIONS.map((s) => `${s.id} (${s.label})`).join(", ");
    throw new UsageError(`"${name}" is not a subscription relm can sign in to; use one of: ${known}`);
  }
  return id;
}

/** Over ssh without a forwarded display the browser is elsewhere: the device code is the better default. */
function remote(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.SSH_CONNECTION || env.SSH_TTY) && !env.DISPLAY && !env.WAYLAND_DISPLAY;
}

/** Pasted lines from stdin; nothing pasted (EOF, or never) leaves the callback to finish the sign-in. */
function pasteReader(): { pasted(signal: AbortSignal): Promise<string>; close(): void } {
  const rl = createInterface({ input: process.stdin, terminal: false });
  return {
    pasted: (signal) =>
      new Promise((resolve) => {
        const onLine = (line: string) => {
          if (!line.trim()) return;
          rl.off("line", onLine);
          resolve(line);
        };
        rl.on("line", onLine);
        signal.addEventListener("abort", () => rl.off("line", onLine), { once: true });
      }),
    close: () => {
      rl.close();
      process.stdin.pause();
    },
  };
}

export async function subscriptionLogin(
  name: string,
  flags: SubscriptionLoginFlags,
  io: RunIo,
): Promise<number> {
  const id = parseSubscriptionName(name);
  refuseKeyFlags(name, flags);
  const info = subscriptionInfo(id);
  const home = relmHomeFrom(io.env);
  const configPath = join(home, "config.json");
  const existing: ConfigFile = readConfigFile(configPath) ?? {};
  if (flags.model !== undefined && flags.model.trim() === "")
    throw new UsageError("--model needs a model name");
  const methods = signInMethods(id);
  const method: SignInMethod =
    flags.device || (remote(io.env) && methods.includes("device")) ? "device" : (methods[0] as SignInMethod);
  if (!methods.includes(method)) {
    throw new UsageError(
      `${info.label} has no device-code sign-in; sign in with the browser (paste the redirect over ssh)`,
    );
  }
  const paste = method === "browser" ? pasteReader() : undefined;
  const cancel = new AbortController();
  const onSigint = () => cancel.abort();
  process.once("SIGINT", onSigint);
  const err = io.stderr;
  try {
    await signIn(id, {
      home,
      env: io.env,
      oauthBase: oauthBaseOverride(id, io.env, existing.oauthUrls),
      method,
      signal: cancel.signal,
      ui: {
        showUrl(url, opened, canPaste) {
          err.write(
            `Sign in to ${info.label}${opened ? " in the browser that opened" : ""}; the page is:\n\n  ${url}\n\n`,
          );
          if (canPaste) {
            err.write(
              "Waiting for the browser. If it runs on another machine, sign in there and paste the\n",
            );
            err.write("address it ends on (or the code it shows) here, then press Enter.\n");
          }
        },
        showDeviceCode(url, code) {
          err.write(
            `Sign in to ${info.label}: open\n\n  ${url}\n\nand enter the code  ${code}\n\nWaiting…\n`,
          );
        },
        pasted: paste?.pasted,
        note: (text) => err.write(`relm: ${text}\n`),
      },
    });
  } catch (error) {
    if (!(error instanceof OAuthError) && !(error instanceof Error)) throw error;
    // Ctrl-C while it waits (its own SIGINT handler: the paste reader is not a terminal question).
    if (cancel.signal.aborted) return cancelled(err, "sign-in cancelled; nothing was saved");
    err.write(`relm: ${error.message}\n`);
    return EXIT.error;
  } finally {
    process.off("SIGINT", onSigint);
    paste?.close();
  }
  const model =
    flags.model ??
    (existing.subscription === id && existing.model ? existing.model : (info.models[0] as string));
  writePrivateJson(configPath, { ...existing, subscription: id, model });
  io.stdout.write(
    `signed in to ${info.label}: tokens saved to ${authPath(home)} (mode 0600); ` +
      `${configPath} now uses it with ${model}. \`relm logout ${id}\` signs out.\n`,
  );
  return EXIT.done;
}
