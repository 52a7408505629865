/** Values too short to be a real secret are skipped, so common words are never blanked out. */
const MIN_SECRET_LENGTH = 8;

/** Replaces every occurrence of a known secret value, so keys never reach a model, journal or terminal. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  }
  return out;
}

/** Values of the host's secret-looking variables: the kernel never sees them, and neither should any output. */
export function secretValues(env: NodeJS.ProcessEnv, extra: (string | undefined)[] = []): string[] {
  const pattern = /(_API_KEY|_TOKEN|SECRET|PASSWORD)$|^(RELM_API_KEY|OPENAI_.*KEY|ANTHROPIC_.*KEY)$|SECRET|PASSWORD/i;
  const values = Object.entries(env)
    .filter(([name, value]) => value !== undefined && pattern.test(name))
    .map(([, value]) => value as string);
  for (const value of extra) if (value) values.push(value);
  return [...new Set(values)].filter((v) => v.length >= MIN_SECRET_LENGTH);
}
