// The session host's `learn` method and what learning does to a hosted session: a real SessionClient
// over the host's socket, a real Agent with real kernels and gates, the scripted model over HTTP.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prepareSession, resumeSession } from "../../../src/cli/setup.js";
import { SessionClient } from "../../../src/host/client.js";
import { SessionHost } from "../../../src/host/host.js";
import { RPC, type RpcError } from "../../../src/host/rpc.js";
import { learningOf } from "../../../src/learning/attach/root-hooks.js";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { edits, eventNumbers, isRefine, quoteOf, systemOf } from "../../support/harness.js";
import type { JournalLine } from "../../support/journal.js";
import { whoAsks } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

const MEMORY = "LESSON-HOST-3: run the gate from the project root";
const GATE = 'test -f fixed.txt || { echo "no fixed.txt here"; exit 1; }';

function journal(dir: string): JournalLine[] {
  return readFileSync(join(dir, "journal.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalLine);
}

/** Root: two "done"s that fail the gate, a child started after the pass, then the fix. */
function script(): (ctx: ScriptContext) => ScriptStep {
  const root: ScriptStep[] = [
    { text: "Done." },
    { text: "Done, really." },
    { code: 'print(rlm("CHILD: check"))' },
    { code: "open('fixed.txt', 'w').write('ok')\nprint('fixed')" },
    { text: "Fixed." },
  ];
  let step = 0;
  return (ctx) => {
    if (isRefine(ctx)) {
      const gates = eventNumbers(ctx, "gates failed");
      return edits([
        { op: "add", kind: "memory", content: MEMORY, evidence: gates, quote: quoteOf(ctx, gates[0]) },
      ]);
    }
    if (whoAsks(ctx).task.includes("CHILD: check")) return { text: "child ok" };
    return root[step++] ?? { text: "nothing left" };
  };
}

async function hosted(rig: Rig, resume?: string) {
  let host: SessionHost | undefined;
  const sink = (event: Parameters<SessionHost["onEvent"]>[0]) => host?.onEvent(event);
  const io = { env: rig.env, cwd: rig.cwd };
  const { session } = resume
    ? await resumeSession(resume, {}, io, sink)
    : await prepareSession("learn", { learn: true }, io, sink);
  host = new SessionHost({
    home: rig.home,
    session,
    title: "learn",
    cwd: rig.cwd,
    detached: false,
    autonomy: { gates: [GATE], maxGateFailures: 5 },
    interactive: true,
  });
  const h = host;
  await h.listen();
  const client = (await SessionClient.connect(rig.home, session.id)) as SessionClient;
  const info = () => client.call("info");
  return {
    session,
    client,
    info,
    turn: async (text: string) => {
      await client.call("send", { text });
      return until(async () => ((await info()).busy ? undefined : info()), 60_000);
    },
    close: async () => {
      client.close();
      await h.finish();
    },
  };
}

describe("learning in a hosted session", () => {
  it("learn on|off|status over the socket; the pass's spend is in info's usage; children started after it get the lesson; a resume keeps the mode", async () => {
    const rig = await startRig("openai", { script: script() });
    const s = await hosted(rig);
    const status = await s.client.call("learn", {});
    expect(status).toMatchObject({ passes: 0, applied: 0, spent: { tokens: 0, cost: null } });
    expect(status.learn).toMatchObject({ everyTurns: 25, atCompaction: true, onGateFailure: 2 });

    const info = await s.turn("ROOT: make the gate pass");
    const lines = journal(s.session.dir);
    const pass = lines.find((l) => l.type === "learn");
    expect(pass).toMatchObject({ trigger: "gate_failure", outcome: "applied" });
    const passTokens = pass?.tokens as number;
    expect(passTokens).toBeGreaterThan(0);

    // info: every call of the tree, the pass's llm_call included.
    let tokens = 0;
    for (const dir of [s.session.dir, ...childDirs(lines, s.session.dir)]) {
      for (const l of journal(dir)) {
        if (l.type !== "model_response" && l.type !== "llm_call") continue;
        const u = l.usage as { inputTokens: number; outputTokens: number };
        tokens += u.inputTokens + u.outputTokens;
      }
    }
    expect(info.tokens).toBe(tokens);
    expect(info.usage.input + info.usage.output).toBe(tokens);
    expect(await s.client.call("learn", { mode: "status" })).toEqual({
      learn: status.learn,
      passes: 1,
      applied: 1,
      spent: { tokens: passTokens, cost: null },
    });

    // The root's prompt waits for a compaction; the child started after the pass has the lesson.
    const agentRequests = rig.model.requests.filter((r) => !isRefine(r));
    const child = agentRequests.filter((r) => whoAsks(r).task.includes("CHILD: check"));
    const root = agentRequests.filter((r) => !whoAsks(r).task.includes("CHILD: check"));
    expect(child).toHaveLength(1);
    expect(systemOf(child[0]?.body)).toContain(MEMORY);
    for (const r of root) expect(systemOf(r.body)).not.toContain(MEMORY);

    const off = await s.client.call("learn", { mode: "off" });
    expect(off).toMatchObject({ learn: null, passes: 1 });
    const bad = (await s.client.request("learn", { mode: "maybe" }).catch((e: unknown) => e)) as RpcError;
    expect(bad.code).toBe(RPC.invalidParams);
    expect(await s.client.call("learn", { mode: "on" })).toMatchObject({ passes: 1 });
    expect(
      journal(s.session.dir)
        .filter((l) => l.type === "learn_mode")
        .map((l) => l.on),
    ).toEqual([true, false, true]);
    const id = s.session.id;
    await s.close();

    // Resumed without --learn: the journal's last /learn says on, and earlier passes are counted.
    const again = await hosted(rig, id);
    expect(learningOf(again.session)?.status()).toMatchObject({
      passes: 1,
      applied: 1,
      spent: { tokens: passTokens },
    });
    expect(learningOf(again.session)?.enabled).toBe(true);
    await again.close();
  });
});

function childDirs(lines: JournalLine[], dir: string): string[] {
  return lines.filter((l) => l.type === "child_spawned").map((l) => join(dir, "children", l.id as string));
}
