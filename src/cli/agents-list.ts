// `relm agents`: the table of sessions. Kept apart from the other session commands so that the lean entry
// (agents-entry.ts, dist/cli/agents.js) loads only this, the listing and its few dependencies.
import { relmHomeFrom } from "../config/home.js";
import { listSessions } from "../host/discovery.js";
import { EXIT } from "./exit-codes.js";

export interface AgentsIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
}

function ago(iso: string): string {
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 60) return `${Math.round(s)}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  "))
    .join("\n");
}

export async function agentsAction(io: AgentsIo, flags: { json?: boolean }): Promise<number> {
  const sessions = await listSessions(relmHomeFrom(io.env));
  if (flags.json) {
    for (const s of sessions) io.stdout.write(`${JSON.stringify(s)}\n`);
  } else if (sessions.length === 0) {
    io.stdout.write('no sessions yet: relm run "..." or relm demo\n');
  } else {
    const rows = [["ID", "STATUS", "STARTED", "ACTIVE", "TOKENS", "CACHED", "COST", "CWD", "TITLE"]];
    for (const s of sessions) {
      const cost = s.cost === null ? "unpriced" : usd(s.cost);
      rows.push([
        s.id,
        s.damaged ? "damaged" : s.status,
        ago(s.created),
        ago(s.lastActivity),
        String(s.tokens),
        // Input tokens read from the provider's prompt cache (priced lower); "-" before it was recorded.
        s.cachedTokens === undefined ? "-" : String(s.cachedTokens),
        cost,
        s.cwd,
        s.title,
      ]);
    }
    io.stdout.write(`${table(rows)}\n`);
    const damaged = sessions.filter((s) => s.damaged);
    if (damaged.length > 0) {
      const ids = damaged.map((s) => s.id).join(", ");
      io.stdout.write(`damaged journal: ${ids}; relm doctor says where and how to recover\n`);
    }
  }
  return EXIT.done;
}

/** Cents from a dollar up, four decimals below (a small spend is not "$0.00"). */
function usd(n: number): string {
  if (n === 0) return "$0";
  return n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`;
}
