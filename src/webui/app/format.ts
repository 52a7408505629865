// Numbers as a person scans them in a table.

export { formatTokens as tokens } from "../../commands/format.js";

export function cost(c: number | null): string {
  if (c === null) return "—";
  return c < 1 ? `$${c.toFixed(3)}` : `$${c.toFixed(2)}`;
}

export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(s)) return "";
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}
