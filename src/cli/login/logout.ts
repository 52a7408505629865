// `relm logout [NAME]`: a subscription's tokens removed from auth.json (and config.json stops using it);
// `relm logout key` (or the configured provider's name) removes the saved API key; no name removes both.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type ConfigFile, readConfigFile, relmHomeFrom } from "../../config/config.js";
import { UsageError } from "../../config/errors.js";
import { writePrivateJson } from "../../config/private-file.js";
import {
  SUBSCRIPTIONS,
  type SubscriptionId,
  subscriptionInfo,
  subscriptionNamed,
} from "../../config/subscriptions.js";
import { authPath, readAuthFile, storeTokens } from "../../llm/auth/index.js";
import { withAuthLock } from "../../llm/auth/store.js";
import { EXIT } from "../exit-codes.js";
import type { RunIo } from "../run.js";

export async function logout(name: string | undefined, io: RunIo): Promise<number> {
  const home = relmHomeFrom(io.env);
  const configPath = join(home, "config.json");
  const config: ConfigFile = readConfigFile(configPath) ?? {};
  const said: string[] = [];
  const id = name === undefined ? undefined : subscriptionNamed(name);
  const keyName =
    name !== undefined && !id && (name === "key" || name === "api-key" || name === config.provider);
  if (name !== undefined && !id && !keyName) {
    const known = [...SUBSCRIPTIONS.map((s) => s.id), "key"].join(", ");
    throw new UsageError(
      `"${name}" is neither a subscription nor the configured provider; use one of: ${known}`,
    );
  }
  let next = config;
  if (name === undefined || id) {
    const signedIn = Object.keys(readAuthFile(home).subscriptions) as SubscriptionId[];
    const leaving = id ? signedIn.filter((s) => s === id) : signedIn;
    if (id && leaving.length === 0) said.push(`not signed in to ${subscriptionInfo(id).label}`);
    if (id) await storeTokens(home, id, undefined);
    else await withAuthLock(home, async () => rmSync(authPath(home), { force: true }));
    for (const s of leaving) said.push(`signed out of ${subscriptionInfo(s).label} (its tokens are deleted)`);
    if (next.subscription && (!id || next.subscription === id)) {
      const { subscription: _gone, ...rest } = next;
      next = rest;
    }
  }
  if ((name === undefined || keyName) && next.apiKey) {
    const { apiKey: _gone, ...rest } = next;
    next = rest;
    said.push(`the API key saved in ${configPath} is removed`);
  }
  if (next !== config) writePrivateJson(configPath, next);
  if (said.length === 0) said.push("nothing to sign out of: no subscription tokens and no saved API key");
  io.stdout.write(`${said.join("; ")}\n`);
  return EXIT.done;
}
