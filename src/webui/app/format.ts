// Numbers as a person scans them in a table.

// Costs and durations in the terminal's words (config/), so a session shows the same figures here as in
// line mode and the terminal UI.
export { formatTokens as tokens } from "../../commands/format.js";
export { formatDuration as duration } from "../../config/duration.js";
export { costWord as cost } from "../../config/money.js";

export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(s)) return "";
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}
