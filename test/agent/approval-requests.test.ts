// The kernel's `approval.request` (src/agent/kernel-api/approvals.ts), in process with the real broker
// and permissions: what a bad request is told (the messages Python raises as ValueError or
// PermissionError, python/tests/test_approvals.py), what a refusal answers, and `approval.cancel`
// withdrawing a request that waits (the cell was interrupted).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Approvals } from "../../src/agent/approvals/broker.js";
import { type ApprovalAgent, handleApprovalRequest } from "../../src/agent/kernel-api/approvals.js";
import { cancelCall } from "../../src/agent/kernel-api/cancellable.js";
import { KernelCallError } from "../../src/agent/kernel-api/errors.js";
import { Permissions } from "../../src/agent/permissions.js";
import { emptyLists } from "../../src/config/approvals.js";
import type { JournalBody } from "../../src/session/types.js";

const dir = mkdtempSync(join(tmpdir(), "relm-approval-requests-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const project = join(dir, "project");
mkdirSync(project);

function agentIn(setting: "never" | "ask", id = "root") {
  const journal: JournalBody[] = [];
  const approvals = new Approvals({ setting, lists: emptyLists() }, mkdtempSync(join(dir, "home-")), project);
  approvals.journalTo((body) => journal.push(body));
  approvals.rootIs({ id: "root", switchMode: async () => "" });
  const agent: ApprovalAgent = {
    id,
    mode: "workspace",
    tree: {
      approvals,
      permissions: new Permissions({
        mode: "workspace",
        level: "workspace",
        net: { kind: "list", rules: [] },
      }),
      options: { cwd: project, kernel: { outputCap: 10_000 } },
      commandEnv: () => ({ PATH: process.env.PATH }),
    },
  };
  return { agent, approvals, journal };
}

async function refusal(params: Record<string, unknown>, id?: string): Promise<KernelCallError> {
  const { agent } = agentIn("never", id);
  const error = await handleApprovalRequest(agent, params).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KernelCallError);
  return error as KernelCallError;
}

describe("approval.request from a kernel", () => {
  it("tells a bad request what is wrong, as a usage error", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: "run", reason: "  ", cmd: "ls" }, "request(): reason must say why, in 1 to 2000 chars"],
      [
        { kind: "disk", reason: "room" },
        'request(): kind must be "net", "run", "write" or "mode", got "disk"',
      ],
      [
        { kind: "net", reason: "r", host: "*.example.org" },
        "request('net'): ask for one host, not a wildcard",
      ],
      [
        { kind: "net", reason: "r", host: "example.org", port: 70000 },
        "request('net'): port must be a whole number from 1 to 65535",
      ],
      [
        { kind: "run", reason: "r", cmd: "   " },
        "request('run'): cmd must be a command line of 1 to 10000 chars",
      ],
      [
        { kind: "mode", reason: "r", mode: "root" },
        "request('mode'): mode must be plan, workspace or full, got \"root\"",
      ],
    ];
    for (const [params, message] of cases) {
      const error = await refusal(params);
      expect(error.message, JSON.stringify(params)).toBe(message);
      expect(error.code).toBe("usage");
    }
    // A missing detail names it.
    expect((await refusal({ kind: "write", reason: "r", path: "x" })).message).toMatch(/content/);
    // Only the session's own agent may ask for another mode: a PermissionError in Python.
    const child = await refusal({ kind: "mode", reason: "r", mode: "full" }, "child-1");
    expect(child.code).toBe("sandbox");
    expect(child.message).toContain("a sub-agent's mode is fixed when it starts");
  });

  it("answers a refusal with who refused and why (Python raises request.Denied from it)", async () => {
    const { agent, journal } = agentIn("never");
    const answer = await handleApprovalRequest(agent, { kind: "run", reason: "push", cmd: "git push" });
    expect(answer).toEqual({
      granted: false,
      by: "policy",
      scope: "once",
      note: "this session runs with --approve never: nothing beyond the allow list is granted",
    });
    expect(journal.map((b) => b.type)).toEqual(["approval_request", "approval_answer"]);
  });

  it("approval.cancel withdraws a waiting request: refused, journaled as withdrawn, nothing waits", async () => {
    const { agent, approvals, journal } = agentIn("ask");
    const asked = handleApprovalRequest(agent, {
      kind: "run",
      reason: "look",
      cmd: "touch should-not-exist",
      call: "c0ffee",
    });
    expect(approvals.pending()).toHaveLength(1);
    // Another agent's call with the same id withdraws nothing.
    cancelCall({ id: "someone-else" }, "approval.cancel", { call: "c0ffee" });
    expect(approvals.pending()).toHaveLength(1);
    cancelCall(agent, "approval.cancel", { call: "c0ffee" });
    expect(await asked).toMatchObject({ granted: false, by: "policy" });
    expect(approvals.pending()).toEqual([]);
    expect(journal.at(-1)).toMatchObject({
      type: "approval_answer",
      allow: false,
      withdrawn: true,
      note: "withdrawn: the cell that asked was interrupted",
    });
    // An answer that comes after acts on nothing.
    const id = (journal[0] as { id: string }).id;
    expect(approvals.answer(id, { allow: true, scope: "once", by: "ui" })).toBe(false);
  });

  it("a request whose kernel dies is withdrawn at once, saying so (no interrupt reached Python)", async () => {
    const { agent, approvals, journal } = agentIn("ask");
    const kernel = new AbortController();
    const asked = handleApprovalRequest(
      agent,
      { kind: "run", reason: "look", cmd: "true", call: "dead01" },
      kernel.signal,
    );
    expect(approvals.pending()).toHaveLength(1);
    kernel.abort();
    expect(await asked).toMatchObject({ granted: false, by: "policy" });
    expect(approvals.pending()).toEqual([]);
    expect(journal.at(-1)).toMatchObject({
      type: "approval_answer",
      withdrawn: true,
      note: "withdrawn: the kernel that asked stopped (killed or crashed)",
    });
  });
});
