// A parent keeps what rlm.agents() and rlm.wait() need of a child that ended, and lets the rest go: the
// child's session, kernel links and sockets stayed in memory for the parent's whole life (a parent fanning
// out 4 children every 10 s grew by ~20 KB a child, found by bench/soak.mjs).
import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { Budget } from "../../src/agent/budget/budget.js";
import {
  type ChildAgent,
  ChildManager,
  type ChildParams,
  type ParentAgent,
} from "../../src/agent/children/manager.js";
import type { TurnOutcome } from "../../src/agent/core/loop.js";
import type { AgentTree } from "../../src/agent/core/tree.js";
import { Permissions } from "../../src/agent/permissions.js";
import type { ModelClient } from "../../src/llm/types.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** A child agent without a model or kernel: it answers its task and holds a big buffer like a session would. */
class FakeChild implements ChildAgent {
  readonly children: ChildManager;
  readonly ballast = Buffer.alloc(1024 * 1024);
  closed = false;

  constructor(
    readonly host: ParentAgent,
    readonly params: ChildParams,
  ) {
    this.children = new ChildManager({
      ...host,
      id: params.id,
      depth: params.depth,
      newChild: host.newChild,
    });
  }

  get id(): string {
    return this.params.id;
  }

  async run(task: string): Promise<TurnOutcome> {
    return { status: "done", text: `did ${task}`, submitted: false };
  }

  cancel(): void {}
  deliver(): void {}
  async close(): Promise<void> {
    this.closed = true;
  }
  spent() {
    return { turns: 1, tokens: 42, elapsedMs: 5, cost: null };
  }
  lastOutput(): string {
    return "";
  }
}

function parentAgent(made: WeakRef<FakeChild>[]): ParentAgent {
  const host: ParentAgent = {
    id: "parent01",
    dir: "/nonexistent",
    depth: 0,
    tree: {
      maxDepth: 2,
      spec: () => undefined,
      permissions: new Permissions({ mode: "full", level: "workspace", net: { kind: "none" } }),
      kernelPolicy: () => ({ sandboxed: false, userUri: undefined }),
    } as unknown as AgentTree,
    budget: new Budget({}),
    mode: "full",
    record: () => undefined,
    newChild: (params): ChildAgent => {
      const child = new FakeChild(host, params);
      made.push(new WeakRef(child));
      return child;
    },
  };
  (host.tree as unknown as { client: () => ModelClient }).client = () => ({ model: "fake" }) as ModelClient;
  return host;
}

describe("a child agent that has ended", () => {
  it("is listed and its result kept, while its session is let go", async () => {
    const made: WeakRef<FakeChild>[] = [];
    const manager = new ChildManager(parentAgent(made));
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const { id } = manager.spawn({ task: `task ${i}` });
      ids.push(id);
      await manager.wait({ id });
    }
    const reply = await manager.wait({ id: ids[3] });
    expect(reply).toMatchObject({ status: "done", value: { kind: "text", text: "did task 3" } });
    const listed = manager.list();
    expect(listed).toHaveLength(20);
    expect(listed[0]).toMatchObject({ status: "done", turns: 1, tokens: 42 });
    expect(manager.descendant(ids[5] as string)?.status).toBe("done");
    expect(() => manager.send({ id: ids[0], text: "hi" })).toThrow(
      `child agent ${ids[0]} has already finished; it cannot take messages`,
    );
    expect(made.every((ref) => ref.deref()?.closed !== false)).toBe(true);

    gc();
    await new Promise((r) => setImmediate(r));
    gc();
    expect(made.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
  });

  it("starts nothing more below it", async () => {
    const made: WeakRef<FakeChild>[] = [];
    const manager = new ChildManager(parentAgent(made));
    const { id } = manager.spawn({ task: "once" });
    const own = made[0]?.deref()?.children as ChildManager; // the child's own sub-agents
    await manager.wait({ id });
    expect(() => own.spawn({ task: "late" })).toThrow(/has ended; it starts no more sub-agents/);
  });
});
