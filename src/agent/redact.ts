import { isSecretName } from "../kernel/index.js";

/** Values of the host's secret-looking variables: the kernel never sees them, and neither should any output. */
export function secretValues(env: NodeJS.ProcessEnv, extra: (string | undefined)[] = []): string[] {
  const values = Object.entries(env)
    .filter(([name, value]) => value !== undefined && isSecretName(name))
    .map(([, value]) => value as string);
  for (const value of extra) if (value) values.push(value);
  // Endpoint URLs (OPENAI_BASE_URL) are not secrets, and short values would blank out ordinary words.
  return [...new Set(values)].filter((v) => v.length >= 8 && !/^https?:\/\//.test(v));
}
