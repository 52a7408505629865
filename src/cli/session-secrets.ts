// Every secret relm can see when a session starts, whichever provider the session uses: a cell can read
// auth.json, config.json or print what it finds, so a key relm holds for another provider (or a
// subscription it is not using now) is as much a secret of this session as the key it sends.
import { secretValues } from "../agent/core/redact.js";
import { type ConfigFile, type ResolvedConfig, readConfigFile } from "../config/config.js";
import { PRESETS } from "../config/presets.js";
import { readAuthFile } from "../llm/auth/store.js";
import { type McpServer, serverSecrets } from "../mcp/index.js";
import { subscriptionSecrets } from "./subscription-session.js";

interface SecretSources {
  /** The environment relm was started with. */
  env: NodeJS.ProcessEnv;
  config: ResolvedConfig;
  /** The session's MCP servers: their env and header values. */
  mcpServers?: readonly McpServer[];
}

/**
 * The values every output of the session is redacted of (journal, host.log, exports, logs, snapshots,
 * what `relm run` prints): secret-looking environment variables, every provider preset's key variables,
 * the active key, config.json's keys (the model's and the search's), the access and refresh tokens of
 * every subscription in auth.json, and the MCP servers' credentials. Values too short to be a key
 * (under 8 characters) are left out: redacting them would blank ordinary words and numbers.
 */
export function sessionSecrets(sources: SecretSources): string[] {
  const { env, config } = sources;
  const file = savedConfig(config);
  const found: (string | undefined)[] = [
    env.RELM_API_KEY,
    ...PRESETS.flatMap((preset) => preset.keyEnv.map((name) => env[name])),
    config.model.apiKey,
    file?.apiKey,
    config.search?.apiKey,
    file?.search?.apiKey,
    ...savedTokens(config.home),
    ...subscriptionSecrets(config),
    ...serverSecrets(sources.mcpServers ?? []),
  ];
  // A key read from a file or the environment is sent trimmed: look for both forms.
  const values = found.flatMap((v) => (typeof v === "string" ? [v, v.trim()] : []));
  return secretValues(env, values);
}

/** config.json as saved (its key is kept even when the environment's key or another provider is used). */
function savedConfig(config: ResolvedConfig): ConfigFile | undefined {
  try {
    return readConfigFile(config.configPath);
  } catch {
    // Resolving the configuration reported a broken file already; a session given its configuration
    // (the demo) has no file of its own to fail on.
    return undefined;
  }
}

/** Every subscription's tokens in auth.json, signed in or not with it now. */
function savedTokens(home: string): string[] {
  const { subscriptions } = readAuthFile(home);
  return Object.values(subscriptions).flatMap((tokens) => (tokens ? [tokens.access, tokens.refresh] : []));
}
