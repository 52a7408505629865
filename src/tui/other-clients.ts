// Quitting a session that other clients follow (another terminal's UI, `relm attach`, `relm logs -f`)
// leaves it running for them, and says who they are.

export function leftForOthers(id: string, others: string[]): string {
  const shown = others.slice(0, 5).map((o) => `  ${o}`);
  if (others.length > 5) shown.push(`  and ${others.length - 5} more`);
  return [
    `session ${id} keeps running: ${others.length === 1 ? "another client follows" : `${others.length} other clients follow`} it:`,
    ...shown,
    `relm attach ${id} to come back · relm stop ${id} to stop it`,
  ].join("\n");
}
