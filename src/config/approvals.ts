// Approvals (issue 20, docs/sandbox.md "Approvals"): the words of the policy that answers a kernel's
// request for more than its permission mode allows (one more host, one command outside the sandbox, a
// write outside the project, a wider mode). Words only here (config/ is the bottom layer); matching a
// request against the lists is agent/approvals/policy.ts's job.
import { UsageError } from "./errors.js";

/**
 * `never`: every request not on the allow list is refused (headless runs that must not wait);
 * `ask`: a person answers (the attached front end, or whoever attaches later) — the default;
 * `auto`: every request not on the deny list is granted.
 */
export type ApproveSetting = "never" | "ask" | "auto";

const APPROVE_SETTINGS: readonly ApproveSetting[] = ["never", "ask", "auto"];

/** One list of rules, by kind: hosts (HOST[:PORT], `*.` for subdomains), command prefixes, paths. */
export interface ApprovalRules {
  hosts: string[];
  commands: string[];
  paths: string[];
}

/** config.json's `approvals`: what is granted and what is refused without asking (deny wins). */
export interface ApprovalLists {
  allow: ApprovalRules;
  deny: ApprovalRules;
}

export function emptyRules(): ApprovalRules {
  return { hosts: [], commands: [], paths: [] };
}

export function emptyLists(): ApprovalLists {
  return { allow: emptyRules(), deny: emptyRules() };
}

/** The setting `word` names; a UsageError naming `where` (the flag, the config key) if none. */
export function parseApprove(word: string, where: string): ApproveSetting {
  const w = word.trim().toLowerCase();
  if ((APPROVE_SETTINGS as readonly string[]).includes(w)) return w as ApproveSetting;
  throw new UsageError(
    `${where} must be never (refuse what is not on the allow list), ask (a person answers) or auto ` +
      `(grant what is not on the deny list), got "${word}" (docs/sandbox.md, "Approvals")`,
  );
}
