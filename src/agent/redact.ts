/** Values of the host's secret-looking variables: the kernel never sees them, and neither should any output. */
export function secretValues(env: NodeJS.ProcessEnv, extra: (string | undefined)[] = []): string[] {
  const pattern = /(_API_KEY|_TOKEN|SECRET|PASSWORD)/i;
  const values = Object.entries(env)
    .filter(
      ([name, value]) => value !== undefined && (pattern.test(name) || /^(OPENAI|ANTHROPIC)_/i.test(name)),
    )
    .map(([, value]) => value as string);
  for (const value of extra) if (value) values.push(value);
  // Short values would blank out ordinary words; real keys are far longer.
  return [...new Set(values)].filter((v) => v.length >= 8 && !/^https?:\/\//.test(v));
}
