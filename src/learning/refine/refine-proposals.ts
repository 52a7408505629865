import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureDir } from "../store/index.js";

/** An edit the agent suggested from Python (harness.propose) for the next refinement to consider. */
export interface Proposal {
  t: string;
  agent: string;
  /** The journal's last event when it was proposed (the cell that proposed it is running). */
  event: number;
  edit: Record<string, unknown>;
}

const FILE = "proposals.jsonl";

/** Proposals live in the root session's harness folder, beside its session-scope revisions. */
export function recordProposal(harnessDir: string, proposal: Proposal): void {
  ensureDir(harnessDir, true);
  appendFileSync(join(harnessDir, FILE), `${JSON.stringify(proposal)}\n`, { mode: 0o600 });
}

export function readProposals(harnessDir: string, agent: string, afterEvent: number): Proposal[] {
  const path = join(harnessDir, FILE);
  if (!existsSync(path)) return [];
  const out: Proposal[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    try {
      const p = JSON.parse(line) as Proposal;
      if (p.agent === agent && p.event > afterEvent) out.push(p);
    } catch {
      // a torn last line
    }
  }
  return out;
}
