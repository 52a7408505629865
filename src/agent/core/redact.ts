import { credentialsIn, hasCredentialUrl } from "../../config/credential-urls.js";
import { isSecretEntry } from "../../config/secret-env.js";

/** Values of the host's secret-looking variables: the kernel never sees them, and neither should any output. */
export function secretValues(env: NodeJS.ProcessEnv, extra: (string | undefined)[] = []): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isSecretEntry(name, value)) continue;
    values.push(value);
    // A program that parsed DATABASE_URL prints its parts, not the whole value.
    values.push(...credentialsIn(value));
  }
  for (const value of extra) if (value) values.push(value);
  // Endpoint URLs (OPENAI_BASE_URL) are not secrets unless they carry a password, and short values
  // would blank out ordinary words.
  return [...new Set(values)].filter(
    (v) => v.length >= 8 && (!/^https?:\/\//.test(v) || hasCredentialUrl(v)),
  );
}
