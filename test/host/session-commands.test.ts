// The session host's command surface (src/host/commands.ts), driven the way the terminal UI drives it:
// a real SessionClient over the host's socket, a real Agent with real kernels, the scripted model
// over HTTP.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkUserVariables, MAX_VARIABLE_BYTES } from "../../src/agent/core/user-variables.js";
import { autonomyFrom } from "../../src/cli/run.js";
import { SessionClient } from "../../src/host/client.js";
import { RPC } from "../../src/host/rpc.js";
import { exportSession } from "../../src/session/index.js";
import { kernelsLeft, pythonsOf, runRelm } from "../support/cli.js";
import { hosted, journal, rpcError } from "../support/hosted.js";
import type { JournalLine } from "../support/journal.js";
import { byTask, echoLastCell } from "../support/router.js";
import { useRigs } from "../support/scripted.js";
import { poll, until } from "../support/wait.js";

const startRig = useRigs();

/** Every journal of the tree under a session folder. */
function treeJournals(dir: string): JournalLine[][] {
  const out = [journal(join(dir, "journal.jsonl"))];
  const children = join(dir, "children");
  if (existsSync(children))
    for (const c of readdirSync(children)) out.push(...treeJournals(join(children, c)));
  return out;
}

function usageSums(dir: string) {
  const sums = { input: 0, output: 0, cached: 0, cacheWrite: 0 };
  for (const lines of treeJournals(dir)) {
    for (const l of lines) {
      if (l.type !== "model_response" && l.type !== "llm_call") continue;
      const u = l.usage as {
        inputTokens: number;
        outputTokens: number;
        cachedInputTokens: number;
        cacheWriteTokens: number;
      };
      sums.input += u.inputTokens;
      sums.output += u.outputTokens;
      sums.cached += u.cachedInputTokens;
      sums.cacheWrite += u.cacheWriteTokens;
    }
  }
  return sums;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

describe("info", () => {
  it("matches the journals of the whole tree, also after a resume", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: count": [{ code: 'r = rlm("CHILD: say hi")\nprint(r, llm("LLM: one word"))' }, echoLastCell],
        "CHILD: say hi": [{ text: "hi" }],
        "LLM: one word": [{ text: "word" }],
      }),
    });
    const s = await hosted(rig);
    const fresh = await s.info();
    expect(fresh).toMatchObject({
      id: s.id,
      busy: false,
      contextTokens: 0,
      tokens: 0,
      goal: null,
      autonomy: null,
    });
    const info = await s.turn("ROOT: count");
    expect(info.status).toBe("idle");
    const sums = usageSums(s.dir);
    expect(sums.input).toBeGreaterThan(0);
    expect(info.usage).toEqual(sums);
    expect(info.tokens).toBe(sums.input + sums.output);
    // The scripted model has no price.
    expect(info.cost).toBeNull();
    const root = journal(join(s.dir, "journal.jsonl"));
    const last = root.filter((l) => l.type === "model_response").at(-1) as unknown as {
      usage: { inputTokens: number; outputTokens: number };
    };
    expect(info.contextTokens).toBe(last.usage.inputTokens + last.usage.outputTokens);
    expect(info).toMatchObject({
      model: "scripted",
      provider: `openai at ${new URL(rig.model.openaiBaseUrl).host}`, // the preset, at the rig's server
      contextWindow: 32_768,
      queued: 0,
      kernel: "idle",
    });
    expect(info.branch).toBeNull();
    await s.close();

    // A new host of the same session counts what the journals say happened before it.
    const again = await hosted(rig, { resume: s.id });
    const resumed = await again.info();
    expect(resumed.usage).toEqual(sums);
    expect(resumed.contextTokens).toBe(info.contextTokens);
    await again.close();
  });
});

describe("send with variables", () => {
  it("puts a large paste into the root kernel, never into a request, and it survives a kernel release", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: read the paste": [
          { code: 'print(len(paste_1), paste_1.endswith("END-OF-" + "PASTE"))' },
          echoLastCell,
          { code: "print('again', len(paste_1), paste_2)" },
          echoLastCell,
        ],
      }),
    });
    const s = await hosted(rig);
    const paste = `${"log line with some text\n".repeat(2200)}END-OF-PASTE`;
    await s.turn("ROOT: read the paste", [{ name: "paste_1", text: paste }]);
    const outputs = () =>
      s.events.flatMap((e) => (e.type === "cell_output" && !e.agent ? [e.output.trim()] : []));
    expect(outputs()).toEqual([`${paste.length} True`]);
    for (const body of rig.bodies()) {
      expect(body.length).toBeLessThan(30_000);
      expect(body).not.toContain("END-OF-PASTE");
    }
    // The model is told the variable's name and shape.
    expect(rig.bodies()[0]).toContain("`paste_1`: str, 52,812 chars, 2,201 lines");
    const root = journal(join(s.dir, "journal.jsonl"));
    expect(root.filter((l) => l.type === "variable")).toEqual([
      expect.objectContaining({ name: "paste_1", varType: "str", size: "52,812 chars, 2,201 lines" }),
    ]);

    // Released (snapshotted), then a new kernel brings it back.
    await s.host.session.releaseKernel();
    expect((await s.info()).kernel).toBe("stopped");
    // A variable the message already names (as the terminal UI does) is not described twice.
    await s.turn("and now `paste_2` too", [{ name: "paste_2", text: "second" }]);
    expect(outputs()).toEqual([`${paste.length} True`, `again ${paste.length} second`]);
    expect(rig.bodies().at(-1)?.split("Set in the kernel with this message")).toHaveLength(2);
    await s.close();
  });

  it("refuses bad names and sizes with invalid params", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const s = await hosted(rig);
    for (const variables of [
      [{ name: "_hidden", text: "x" }],
      [{ name: "class", text: "x" }],
      [{ name: "rlm", text: "x" }],
      [{ name: "a b", text: "x" }],
      [{ name: "ok", text: 5 }],
      "paste",
    ]) {
      const error = await rpcError(s.client.request("send", { text: "hi", variables }));
      expect(error.code, JSON.stringify(variables)).toBe(RPC.invalidParams);
      expect(error.message).toMatch(/variable/);
    }
    expect(rig.model.requests).toHaveLength(0);
    expect(() => checkUserVariables([{ name: "big", text: "x".repeat(MAX_VARIABLE_BYTES + 1) }])).toThrow(
      /too large/,
    );
    const tooLong = await rpcError(s.client.call("send", { text: "x".repeat(17_000) }));
    expect(tooLong.code).toBe(RPC.invalidParams);
    await s.close();
  });
});

describe("interrupt", () => {
  it("cancels a running rlm.map with its whole subtree; no child kernel is left; the session goes on", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: fan out": [
          { code: 'print(rlm.map("CHILD: take your time", ["alpha.txt", "beta.txt", "gamma.txt"]))' },
          { text: "still here" },
        ],
        "CHILD: take your time": [{ code: "import time\ntime.sleep(120)" }],
      }),
    });
    const s = await hosted(rig);
    await s.client.call("send", { text: "ROOT: fan out" });
    const childCells = () =>
      new Set(s.events.flatMap((e) => (e.type === "cell" && e.agent ? [e.agent] : [])));
    await until(() => (childCells().size === 3 ? true : undefined), 30_000);
    expect((await s.info()).busy).toBe(true);

    expect(await s.client.call("interrupt", {})).toEqual({ interrupted: true });
    const after = await until(async () => ((await s.info()).busy ? undefined : s.info()), 30_000);
    expect(after.status).toBe("interrupted");

    const root = journal(join(s.dir, "journal.jsonl"));
    const spawned = root.filter((l) => l.type === "child_spawned");
    expect(spawned.map((l) => l.label)).toEqual(["alpha.txt", "beta.txt", "gamma.txt"]);
    const finished = root.filter((l) => l.type === "child_finished");
    expect(finished.map((l) => l.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    const childPids: number[] = [];
    for (const child of spawned) {
      const lines = journal(join(s.dir, "children", child.id as string, "journal.jsonl"));
      expect(lines.some((l) => l.type === "interrupted")).toBe(true);
      for (const l of lines)
        if (l.type === "kernel" && l.event === "started") childPids.push(l.pid as number);
    }
    expect(childPids).toHaveLength(3);
    // The turn ends only once its sub-agents are gone.
    expect(childPids.filter(isAlive)).toEqual([]);
    // What is left of the tree's Python: the root's kernel, and the template children fork from (with
    // its pristine spare fork, which never ran a cell); on Linux each kernel has its keeper above it.
    const rootPid = root.find((l) => l.type === "kernel" && l.event === "started")?.pid as number;
    const keeper = (pid: number) => readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "relm-keeper";
    const others = pythonsOf(rig.home).filter((pid) => pid !== rootPid && !keeper(pid));
    expect(others.length).toBeLessThanOrEqual(2);
    for (const pid of others) expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).toContain("relm.template");

    const next = await s.turn("are you there?");
    expect(next.status).toBe("idle");
    expect(s.events.some((e) => e.type === "final" && !e.agent && e.text === "still here")).toBe(true);
    expect(await s.client.call("interrupt", {})).toEqual({ interrupted: false });
    await s.close();
  });
});

describe("model", () => {
  it("switches the root's model from its next call, journals it, and a resumed session keeps it", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "ROOT: talk": [{ text: "one" }, { text: "two" }, { text: "three" }] }),
    });
    const s = await hosted(rig);
    await s.turn("ROOT: talk");
    const provider = `openai at ${new URL(rig.model.openaiBaseUrl).host}`; // the preset, at the rig's server
    expect(await s.client.call("model", {})).toEqual({ model: "scripted", provider });
    expect(await s.client.call("model", { name: "bigger-model" })).toEqual({
      model: "bigger-model",
      provider,
    });
    const info = await s.turn("again");
    expect(info.model).toBe("bigger-model");
    const models = rig.model.requests.map((r) => (r.body as { model: string }).model);
    expect(models).toEqual(["scripted", "bigger-model"]);
    const root = journal(join(s.dir, "journal.jsonl"));
    expect(root.filter((l) => l.type === "model")).toEqual([
      expect.objectContaining({ model: "bigger-model", provider }),
    ]);
    const bad = await rpcError(s.client.call("model", { name: "two words" }));
    expect(bad.code).toBe(RPC.invalidParams);
    await s.close();
    // Exports read past the new event.
    for (const format of ["md", "html", "ipynb", "jsonl"] as const) {
      expect(await exportSession(s.dir, format)).toContain("two");
    }

    const again = await hosted(rig, { resume: s.id });
    expect((await again.info()).model).toBe("bigger-model");
    await again.turn("and again");
    const lastBody = rig.model.requests[rig.model.requests.length - 1]?.body as
      | { model?: string }
      | undefined;
    expect(lastBody?.model).toBe("bigger-model");
    await again.close();
  });
});

describe("checkpoints and undo", () => {
  it("steps back one code-running turn per undo, never the same checkpoint twice", async () => {
    const write = (v: string) => ({ code: `open("a.txt", "w").write("${v}")` });
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: edit": [
          write("v1"),
          { text: "ok" },
          write("v2"),
          { text: "ok" },
          write("v3"),
          { text: "ok" },
          write("v4"),
          { text: "ok" },
        ],
      }),
    });
    const s = await hosted(rig);
    await s.turn("ROOT: edit");
    await s.turn("more");
    await s.turn("more");
    const file = join(rig.cwd, "a.txt");
    expect(readFileSync(file, "utf8")).toBe("v3");
    const listed = (await s.client.call("checkpoints", {})).checkpoints;
    expect(listed.map((c) => c.turn)).toEqual([5, 3, 1]);
    expect(listed.every((c) => !c.restored)).toBe(true);

    const first = await s.client.call("undo", {});
    expect(first).toMatchObject({ turn: 5, changed: ["a.txt"], removed: [] });
    expect(readFileSync(file, "utf8")).toBe("v2");
    const second = await s.client.call("undo", {});
    expect(second).toMatchObject({ turn: 3, changed: ["a.txt"] });
    expect(readFileSync(file, "utf8")).toBe("v1");
    const third = await s.client.call("undo", {});
    expect(third).toMatchObject({ turn: 1, removed: ["a.txt"] });
    expect(existsSync(file)).toBe(false);
    expect(await s.client.call("undo", {})).toEqual({ error: expect.stringMatching(/nothing older/) });
    const marked = (await s.client.call("checkpoints", {})).checkpoints;
    expect(marked.map((c) => c.restored)).toEqual([true, true, true]);
    const undos = journal(join(s.dir, "journal.jsonl")).filter((l) => l.type === "undo");
    expect(undos.map((l) => l.turn)).toEqual([5, 3, 1]);

    // New work starts the stepping again from its own checkpoint.
    await s.turn("once more");
    expect(readFileSync(file, "utf8")).toBe("v4");
    expect(await s.client.call("undo", {})).toMatchObject({ turn: 7 });
    expect(existsSync(file)).toBe(false);
    const bad = await rpcError(s.client.request("undo", { turn: "last" }));
    expect(bad.code).toBe(RPC.invalidParams);
    await s.close();
  });
});

describe("sub-agents", () => {
  it("a person's message reaches a running child; child.events reads its journal; labels name spawned children", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: delegate": [
          { code: 'a = rlm.spawn("CHILD: wait for a word", name="listener")\nprint(a.result())' },
          echoLastCell,
        ],
        "CHILD: wait for a word": [
          {
            code: "import time\nfor _ in range(1200):\n    got = inbox()\n    if got:\n        print(got[0]['from'], got[0]['text'])\n        break\n    time.sleep(0.05)",
          },
          echoLastCell,
        ],
      }),
    });
    const s = await hosted(rig);
    await s.client.call("send", { text: "ROOT: delegate" });
    const childId = await until(() => s.events.find((e) => e.type === "cell" && e.agent)?.agent);
    expect(await s.client.call("child.send", { id: childId, text: "PING-42" })).toEqual({ delivered: true });
    await until(async () => ((await s.info()).busy ? undefined : true), 30_000);
    const final = s.events.find((e) => e.type === "final" && !e.agent);
    expect(final && "text" in final ? final.text : "").toBe("user PING-42");

    const root = journal(join(s.dir, "journal.jsonl"));
    expect(root.find((l) => l.type === "child_spawned")).toMatchObject({
      id: childId,
      name: "listener",
      label: "listener",
    });
    expect(root).toContainEqual(
      expect.objectContaining({ type: "message", from: "user", to: childId, text: "PING-42" }),
    );

    const { events } = await s.client.call("child.events", { id: childId });
    const cells = events.filter((e) => e.type === "cell");
    expect(cells).toHaveLength(1);
    expect(cells[0]).toMatchObject({ agent: childId, code: expect.stringContaining("inbox()") });
    expect(events.some((e) => e.type === "cell_output" && e.output.includes("PING-42"))).toBe(true);

    const ended = await rpcError(s.client.call("child.send", { id: childId, text: "late" }));
    expect(ended.message).toMatch(/has already finished/);
    const unknown = await rpcError(s.client.call("child.events", { id: "zzzzzzzz" }));
    expect(unknown.code).toBe(RPC.invalidParams);
    expect(unknown.message).toBe(`no sub-agent zzzzzzzz in session ${s.id}`);
    const noId = await rpcError(s.client.request("child.cancel", {}));
    expect(noId.code).toBe(RPC.invalidParams);
    await s.close();
  });
});

describe("goal, autonomy and heartbeat", () => {
  it("set, read and clear them; bad params say what is wrong", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const s = await hosted(rig);
    expect(await s.client.call("goal", {})).toEqual({ goal: null, done: false });
    expect(await s.client.call("goal", { text: "ship it" })).toEqual({ goal: "ship it", done: false });
    expect(await s.client.call("autonomy", { mode: "on", gates: ["python -m pytest -q"] })).toEqual({
      autonomy: { gates: ["python -m pytest -q"] },
    });
    // An interactive host's autonomous mode expects a person to be there.
    expect(s.host.autonomy).toMatchObject({ unattended: false });
    expect(await s.info()).toMatchObject({ goal: "ship it", autonomy: { gates: ["python -m pytest -q"] } });
    expect(await s.client.call("autonomy", { mode: "off" })).toEqual({ autonomy: null });
    expect((await rpcError(s.client.request("autonomy", { mode: "maybe" }))).code).toBe(RPC.invalidParams);
    expect((await rpcError(s.client.request("autonomy", { mode: "on", gates: "npm test" }))).code).toBe(
      RPC.invalidParams,
    );

    const added = await s.client.call("heartbeat", {
      every: "10m",
      prompt: "check the build",
    });
    expect(added.jobs).toEqual([expect.objectContaining({ id: added.job?.id, prompt: "check the build" })]);
    expect((await rpcError(s.client.call("heartbeat", { every: "soon", prompt: "x" }))).code).toBe(
      RPC.invalidParams,
    );
    expect(await s.client.call("heartbeat", { off: true })).toEqual({ cancelled: 1, jobs: [] });
    expect((await rpcError(s.client.request("nonsense", {}))).code).toBe(RPC.methodNotFound);
    await s.close();
  });
});

describe("attached clients", () => {
  it("keep a detached host up and its kernel running; the idle timers start when the last one leaves", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "ROOT: one cell": [{ code: "x = 1" }, { text: "done" }] }),
    });
    const s = await hosted(rig, { detached: true, idleExitMs: 300, kernelIdleMs: 100 });
    let exited = false;
    void s.host.exited.then(() => {
      exited = true;
    });
    await s.client.call("attach", { after: 0 });
    await s.turn("ROOT: one cell");
    // Three times the idle timeout: a host that ignored the attached client would be gone by then.
    expect(await poll(() => (exited ? true : undefined), 900)).toBeUndefined();
    expect((await s.info()).kernel).toBe("idle");
    await s.client.call("detach", {});
    await until(() => (exited ? true : undefined), 10_000);
    expect(await kernelsLeft(rig.home)).toEqual([]);
    s.client.close();
  });
});

describe("relm run --interactive", () => {
  it("starts a background host that waits for its first message; its autonomous mode is attended", async () => {
    expect(autonomyFrom({ autonomous: true, interactive: true }, true)?.unattended).toBe(false);
    expect(autonomyFrom({ autonomous: true }, true)?.unattended).toBe(true);
    const rig = await startRig("openai", { script: byTask({ "ROOT: first": [{ text: "first answer" }] }) });
    const started = await runRelm(["run", "--detach", "--interactive"], { env: rig.env, cwd: rig.cwd });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    const client = (await SessionClient.connect(rig.home, id)) as SessionClient;
    // A goal before the first message; the host is idle, and not started on a made-up task.
    expect(await client.call("goal", { text: "answer once" })).toEqual({ goal: "answer once", done: false });
    expect(await client.call("info")).toMatchObject({ busy: false, status: "idle", title: "" });
    expect(rig.model.requests).toHaveLength(0);
    await client.call("send", { text: "ROOT: first" });
    const done = await until(async () => {
      const info = await client.call("info");
      return info.busy ? undefined : info;
    });
    expect(done).toMatchObject({ title: "ROOT: first", goal: "answer once" });
    expect(rig.model.requests).toHaveLength(1);
    await client.call("stop", {});
    await client.closed;
    await until(() => (pythonsOf(rig.home).length === 0 ? true : undefined));
  });
});
