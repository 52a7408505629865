// The approvals of one agent tree (docs/sandbox.md, "Approvals"): a kernel's request for more than its
// permission mode allows is journaled, answered by the lists or by --approve when they can, else held
// until a person answers through whichever front end is attached (or attaches later), and the answer
// is journaled before anything acts on it. The person's answer arrives through the session host's
// `approve` method, which code in a kernel cannot call (host/server.ts): no kernel answers its own.
import { randomBytes } from "node:crypto";
import {
  type ApprovalLists,
  type ApprovalRules,
  type ApproveSetting,
  emptyLists,
  emptyRules,
} from "../../config/approvals.js";
import type { PermissionMode } from "../../config/permission-mode.js";
import type { JournalBody, JournalBodyOf } from "../../session/types.js";
import { type ApprovalAsk, listAnswer, ruleFor } from "./policy.js";
import { projectRules, rememberForProject } from "./store.js";

/**
 * A request waiting for a person, as front ends show it: what its journal event says (the kind, why,
 * exactly what is asked, which agent asked), and when it was asked (ISO time).
 */
export type PendingApproval = Omit<JournalBodyOf<"approval_request">, "type"> & { at: string };

/**
 * An answer, as its journal event says it: allowed or not, for how long (this request, this session,
 * every later session in this project), who answered (a person through a front end, or the policy: the
 * lists, --approve, the mode), why, and whether the request was taken back unanswered.
 */
export type ApprovalDecision = Omit<JournalBodyOf<"approval_answer">, "type" | "id">;

export interface ApprovalSettings {
  setting: ApproveSetting;
  lists: ApprovalLists;
}

/** What the request is about, in one line. */
function subjectOf(ask: ApprovalAsk): string {
  switch (ask.kind) {
    case "net":
      return ask.port === undefined ? ask.host : `${ask.host}:${ask.port}`;
    case "run":
      return ask.cmd;
    case "write":
      return ask.path;
    case "mode":
      return ask.mode;
  }
}

export class Approvals {
  private readonly waiting = new Map<
    string,
    { request: PendingApproval; ask: ApprovalAsk; resolve: (d: ApprovalDecision) => void }
  >();
  /** "Allow for this session" answers. */
  private readonly sessionRules: ApprovalRules = emptyRules();
  private record: ((body: JournalBody) => unknown) | undefined;
  private readonly listeners = new Set<(pending: readonly PendingApproval[]) => void>();

  constructor(
    private readonly settings: ApprovalSettings = { setting: "ask", lists: emptyLists() },
    private readonly home: string,
    private readonly project: string,
  ) {}

  /** Where requests and answers are journaled: the root agent's journal (set when the root is made). */
  journalTo(record: (body: JournalBody) => unknown): void {
    this.record = record;
  }

  /** The root agent's id and how it switches mode (set when the root is made). */
  private root: { id: string; switchMode(mode: PermissionMode): Promise<string> } | undefined;
  /** A mode a person granted during the running cell: the switch happens when the cell ends. */
  private grantedMode: PermissionMode | undefined;

  /** The root agent: its mode requests switch the session's mode after the cell (agent.ts switchMode). */
  rootIs(root: { id: string; switchMode(mode: PermissionMode): Promise<string> }): void {
    this.root = root;
  }

  /** Whether `agent` is the root (only the session's own mode can be switched). */
  isRoot(agent: string): boolean {
    return this.root?.id === agent;
  }

  /** Switches the root's mode once the running cell has ended (request('mode', ...) was granted). */
  switchAfterCell(mode: PermissionMode): void {
    this.grantedMode = mode;
  }

  /** After each cell of agent `agent`: the granted mode switch, and what it did (for the model). */
  async afterCell(agent: string): Promise<string | undefined> {
    const mode = this.grantedMode;
    if (!mode || !this.root || agent !== this.root.id) return undefined;
    this.grantedMode = undefined;
    try {
      return await this.root.switchMode(mode);
    } catch (error) {
      return `[the approved switch to mode ${mode} failed: ${(error as Error).message}]`;
    }
  }

  /** The requests waiting for a person now, oldest first. */
  pending(): PendingApproval[] {
    return [...this.waiting.values()].map((w) => w.request);
  }

  /** Called whenever a request starts or stops waiting. Returns the function that stops it. */
  onChange(listener: (pending: readonly PendingApproval[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Journals `ask` and resolves with its answer: by the lists or --approve at once, else when a person
   * answers. `modeAllows`: the permission mode already allows it (answered by the policy, granted).
   */
  async decide(
    requester: string,
    ask: ApprovalAsk,
    reason: string,
    modeAllows: boolean,
    /**
     * Aborted when the cell that asked is interrupted, or its kernel exits: the request is withdrawn
     * (refused, journaled so). A string reason says why; otherwise the cell was interrupted.
     */
    signal?: AbortSignal,
  ): Promise<ApprovalDecision> {
    const request: PendingApproval = {
      id: randomBytes(4).toString("hex"),
      kind: ask.kind,
      reason,
      subject: subjectOf(ask),
      requester,
      ...(ask.kind === "write" ? { bytes: ask.bytes } : {}),
      at: new Date().toISOString(),
    };
    const { at: _at, ...journaled } = request;
    this.record?.({ type: "approval_request", ...journaled });
    const decision =
      this.byPolicy(ask, modeAllows) ??
      (await new Promise<ApprovalDecision>((resolve) => {
        this.waiting.set(request.id, { request, ask, resolve });
        this.changed();
        const withdraw = () =>
          this.answer(request.id, {
            allow: false,
            scope: "once",
            by: "policy",
            note: `withdrawn: ${typeof signal?.reason === "string" ? signal.reason : "the cell that asked was interrupted"}`,
            withdrawn: true,
          });
        if (signal?.aborted) withdraw();
        else signal?.addEventListener("abort", withdraw, { once: true });
      }));
    this.settle(request.id, ask, decision);
    return decision;
  }

  /**
   * A person's answer to request `id` (the host's `approve` method): false when no such request waits
   * (answered already, by another front end or the policy).
   */
  answer(id: string, decision: ApprovalDecision): boolean {
    const entry = this.waiting.get(id);
    if (!entry) return false;
    this.waiting.delete(id);
    entry.resolve(decision);
    this.changed();
    return true;
  }

  /** Refuses every waiting request (the session closes: nobody can answer any more). */
  refuseAll(note: string): void {
    for (const id of [...this.waiting.keys()])
      this.answer(id, { allow: false, scope: "once", by: "policy", note });
  }

  private byPolicy(ask: ApprovalAsk, modeAllows: boolean): ApprovalDecision | undefined {
    const { lists, setting } = this.settings;
    const said = listAnswer(
      lists.deny,
      [lists.allow, projectRules(this.home, this.project), this.sessionRules],
      ask,
      this.project,
    );
    const policy = (allow: boolean, note: string): ApprovalDecision => ({
      allow,
      scope: "once",
      by: "policy",
      note,
    });
    if (said === "deny") return policy(false, "it is on the deny list (config.json approvals.deny)");
    if (modeAllows) return policy(true, "the permission mode allows it");
    if (said === "allow") return policy(true, "it is on an allow list");
    if (setting === "never")
      return policy(
        false,
        "this session runs with --approve never: nothing beyond the allow list is granted",
      );
    if (setting === "auto") return policy(true, "this session runs with --approve auto");
    return undefined;
  }

  /** Journals the answer, then remembers a grant for the session or the project. */
  private settle(id: string, ask: ApprovalAsk, decision: ApprovalDecision): void {
    this.record?.({ type: "approval_answer", id, ...decision });
    if (!decision.allow || decision.scope === "once") return;
    const rule = ruleFor(ask);
    if (!rule) return;
    if (!this.sessionRules[rule.list].includes(rule.rule)) this.sessionRules[rule.list].push(rule.rule);
    if (decision.scope === "project") rememberForProject(this.home, this.project, rule.list, rule.rule);
  }

  private changed(): void {
    const now = this.pending();
    for (const listener of this.listeners) listener(now);
  }
}
