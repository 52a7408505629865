// The session host's refine and refine.apply methods, through a real host and the scripted model (split
// from session-commands.test.ts, which covers the host's other methods).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RPC } from "../../src/host/rpc.js";
import type { ScriptContext, ScriptStep } from "../../src/scripted/index.js";
import { edits, eventNumbers, isRefine, quoteOf, systemOf } from "../support/harness.js";
import { hosted, rpcError } from "../support/hosted.js";
import { whoAsks } from "../support/router.js";
import { useRigs } from "../support/scripted.js";

const startRig = useRigs();

describe("refine", () => {
  const LESSON = "LESSON-7Q: the config file is a Python literal";
  /** The root: a cell for a task, the cell's output as the answer, a child when asked to delegate. */
  function script(ctx: ScriptContext): ScriptStep {
    if (isRefine(ctx)) {
      const [cell] = eventNumbers(ctx, "cell");
      return edits([
        {
          op: "add",
          kind: "memory",
          content: LESSON,
          evidence: [cell],
          quote: quoteOf(ctx, cell),
          reason: "seen",
          hypothesis: "read right",
        },
      ]);
    }
    if (ctx.rawBody.includes("You summarise the earlier part"))
      return { text: "## Goal\nLearn.\n## Progress so far\nDone." };
    if (whoAsks(ctx).task.includes("CHILD: check")) return { text: "child ok" };
    const messages = (ctx.body as { messages: { role: string }[] }).messages;
    if (messages.at(-1)?.role === "tool") return { text: ctx.lastToolResult?.trim() ?? "" };
    const said = ctx.lastUserText ?? "";
    if (said.includes("ROOT: learn")) return { code: "print('learned')" };
    if (said.includes("now delegate")) return { code: 'print(rlm("CHILD: check"))' };
    return { text: "ok" };
  }

  it("proposes without writing, applies by token, and takes effect where appliesWhere says: at once as a note, in the prompt after the next compaction, children too", async () => {
    const rig = await startRig("openai", { script });
    const s = await hosted(rig);
    await s.turn("ROOT: learn");
    const proposed = await s.client.call("refine", { scope: "session" });
    expect(proposed.accepted).toBe(1);
    expect(proposed.description).toContain(LESSON);
    expect(proposed.appliesWhere).toMatch(
      /^This session's own scope .* from its next compaction.* goes on probation/,
    );
    expect(existsSync(join(s.dir, "harness", "revisions.jsonl"))).toBe(false);
    expect((await rpcError(s.client.request("refine", { scope: "team" }))).code).toBe(RPC.invalidParams);

    const applied = await s.client.call("refine.apply", {
      token: proposed.token,
    });
    expect(applied).toMatchObject({ applied: true, appliesWhere: proposed.appliesWhere });
    expect(applied.report).toMatch(/applied as revision \w+ in the session scope/);
    expect((await rpcError(s.client.call("refine.apply", { token: proposed.token }))).code).toBe(
      RPC.invalidParams,
    );

    // At once, as a note after the person's message; the prompt stays byte-stable until a compaction
    // rebuilds it, so the request extends the one before it.
    const before = rig.model.requests.length;
    await s.turn("hello");
    const hello = rig.model.requests[before];
    expect(systemOf(hello?.body)).not.toContain(LESSON);
    const sent = ((hello?.body ?? {}) as { messages: { role: string; content: unknown }[] }).messages;
    const last = rig.model.requests
      .slice(0, before)
      .filter((r) => !isRefine(r))
      .at(-1);
    const previous = ((last?.body ?? {}) as { messages: unknown[] }).messages;
    expect(sent.slice(0, previous.length)).toEqual(previous);
    expect(JSON.stringify(sent.at(-2)?.content)).toContain("hello");
    expect(sent.at(-1)?.role).toBe("user");
    expect(JSON.stringify(sent.at(-1)?.content)).toMatch(
      // One event of evidence: "from event 6", never "from events 6".
      /\[relm: lesson learned from event \d+; it is in the harness \(session scope, revision r/,
    );
    expect(JSON.stringify(sent.at(-1)?.content)).toContain(LESSON);
    // A conversation this short is not compacted, but /compact still renews the prompt with the harness.
    expect(await s.client.call("compact", {})).toEqual({
      compacted: false,
      skipped: true,
      message: expect.stringMatching(/^not compacted: .*; the system prompt was renewed with the harness$/),
    });
    const compactedAt = rig.model.requests.length;
    await s.turn("now delegate");
    const agentRequests = rig.model.requests
      .slice(compactedAt)
      .filter((r) => !isRefine(r) && !r.rawBody.includes("You summarise"));
    const rootAfter = agentRequests.filter((r) => whoAsks(r).task.includes("ROOT: learn"));
    const child = agentRequests.filter((r) => whoAsks(r).task.includes("CHILD: check"));
    expect(rootAfter.length).toBeGreaterThan(0);
    expect(child).toHaveLength(1);
    for (const r of [...rootAfter, ...child]) expect(systemOf(r.body)).toContain(LESSON);
    expect(s.events.some((e) => e.type === "final" && !e.agent && e.text === "child ok")).toBe(true);
    await s.close();
  });
});
