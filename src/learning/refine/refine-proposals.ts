import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { ensureDir, readJsonLines } from "../store/index.js";

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
  return (readJsonLines(join(harnessDir, FILE)) as (Proposal | null)[]).filter(
    (p): p is Proposal => p?.agent === agent && p.event > afterEvent,
  );
}
