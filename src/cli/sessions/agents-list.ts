// `relm agents`: the table of sessions. Kept apart from the other session commands so that the lean entry
// (agents-entry.ts, dist/cli/agents.cjs) loads only this, the listing and its few dependencies.
import { ago } from "../../commands/format.js";
import { relmHomeFrom } from "../../config/home.js";
import { homeToRead } from "../../config/home-check.js";
import { costWord } from "../../config/money.js";
import { listNewest } from "../../host/states/discovery.js";
import { EXIT } from "../exit-codes.js";
import type { RunIo } from "../run.js";
import { table } from "../table.js";

/** Rows the table shows by default: a terminal's worth (newest first, so the newest stay in view). */
const RECENT_ROWS = 20;

export async function agentsAction(
  io: Pick<RunIo, "env" | "stdout">,
  flags: { json?: boolean; all?: boolean },
): Promise<number> {
  const home = homeToRead(relmHomeFrom(io.env));
  // The table shows the live ones and the newest others unless --all; --json is for scripts: every one.
  const { listings: sessions, hidden } = await listNewest(
    home,
    flags.json || flags.all ? Number.POSITIVE_INFINITY : RECENT_ROWS,
  );
  if (flags.json) {
    for (const s of sessions) io.stdout.write(`${JSON.stringify(s)}\n`);
  } else if (sessions.length === 0) {
    io.stdout.write('no sessions yet: relm run "..." or relm demo\n');
  } else {
    const rows = [["ID", "STATUS", "STARTED", "ACTIVE", "TOKENS", "CACHED", "COST", "CWD", "TITLE"]];
    for (const s of sessions) {
      rows.push([
        s.id,
        // A plan's progress (plan() in the kernel) beside the status: "running 2/5".
        s.damaged
          ? "damaged"
          : s.approvals && (s.status === "running" || s.status === "waiting")
            ? "needs approval"
            : `${s.status}${s.plan ? ` ${s.plan}` : ""}${atWork(s.childrenAtWork)}${s.unsaved?.length ? ` (${vars(s.unsaved.length)} unsaved)` : ""}`,
        ago(s.created),
        ago(s.lastActivity),
        String(s.tokens),
        // Input tokens read from the provider's prompt cache (priced lower); "-" before it was recorded.
        s.cachedTokens === undefined ? "-" : String(s.cachedTokens),
        costWord(s.cost),
        s.cwd,
        s.title,
      ]);
    }
    io.stdout.write(`${table(rows)}\n`);
    if (hidden > 0) io.stdout.write(`… and ${hidden} older sessions: relm agents --all lists every one\n`);
    const damaged = sessions.filter((s) => s.damaged);
    if (damaged.length > 0) {
      const ids = damaged.map((s) => s.id).join(", ");
      io.stdout.write(`damaged journal: ${ids}; relm doctor says where and how to recover\n`);
    }
    // Named, not only counted: what a released kernel (idle, or the session ended) will not bring back.
    for (const s of sessions) {
      if (!s.unsaved?.length) continue;
      io.stdout.write(
        `${s.id}: ${vars(s.unsaved.length)} won't survive a kernel release: ${s.unsaved.join(", ")} (why: its journal's last snapshot event)\n`,
      );
    }
  }
  return EXIT.done;
}

/** " (2 background children at work)": why a session whose own turn has ended reads as running. */
function atWork(n: number | undefined): string {
  if (!n) return "";
  return ` (${n} background ${n === 1 ? "child" : "children"} at work)`;
}

function vars(n: number): string {
  return n === 1 ? "1 var" : `${n} vars`;
}
