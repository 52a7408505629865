// Sub-agents (src/agent/children/manager.ts, agent/children/launch.ts, agent/children/map.ts, agent/children/result.ts) in this process:
// rlm(...) from a root session's cell starts real child sessions, each with its own kernel and journal,
// against the scripted model over HTTP. What the parent's code gets back, in what order, and what it
// gets when a child fails or may not start.
import { describe, expect, it } from "vitest";
import { alive, ofTypes, useSessions } from "../support/in-process.js";
import type { JournalLine } from "../support/journal.js";
import { byTask, echoLastCell, whoAsks } from "../support/router.js";
import { useRigs } from "../support/scripted.js";
import { eventually } from "../support/wait.js";

const startRig = useRigs();
const open = useSessions();

function kernelPid(lines: JournalLine[]): number {
  const started = lines.find((l) => l.type === "kernel" && l.event === "started");
  return started?.pid as number;
}

describe("sub-agents started from a cell", () => {
  it("rlm() runs a child with its own kernel and journal and returns its answer to the code", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: delegate": [
          { code: 'r = rlm("CHILD: add forty", a=2)\nprint("child said:", r, type(r).__name__)' },
          echoLastCell,
        ],
        "CHILD: add forty": [{ code: "import os\nprint(a + 40, os.getpid())" }, { text: "42" }],
      }),
    });
    const { session, lines, children } = await open(rig);

    const outcome = await session.run("ROOT: delegate");

    expect(outcome).toMatchObject({ status: "done", text: "child said: 42 str" });
    const root = lines();
    const spawned = ofTypes(root, "child_spawned");
    expect(spawned).toHaveLength(1);
    const childId = spawned[0]?.id as string;
    expect(spawned[0]).toMatchObject({ task: "CHILD: add forty", variables: [{ name: "a", type: "int" }] });
    expect(ofTypes(root, "child_finished")).toEqual([
      expect.objectContaining({ id: childId, status: "done", result: "42" }),
    ]);
    // Its own journal, under the parent's folder, naming the parent; its own kernel process.
    const child = children().get(childId) as JournalLine[];
    expect(child[0]).toMatchObject({ type: "header", id: childId, parent: session.id });
    const [output] = ofTypes(child, "cell_output");
    const childPid = kernelPid(child);
    expect(output?.output).toBe(`42 ${childPid}\n`);
    expect(childPid).not.toBe(kernelPid(root));
    // The root's journal has no cell of the child's; the child's kernel is gone once it answered.
    expect(ofTypes(root, "cell").map((l) => l.code)).not.toContain("import os\nprint(a + 40, os.getpid())");
    expect(await eventually(() => !alive(childPid))).toBe(true);
  });

  it("rlm.map returns the results in item order, whatever order the children finish in", async () => {
    // Each child waits until every smaller item's child has finished: they end 1, 2, 3, the items are
    // given 3, 1, 2. Files in the shared working directory say who is done; no timing is involved.
    const child = [
      "import os, time",
      "deadline = time.time() + 60",
      "while not all(os.path.exists(f'done-{k}') for k in (1, 2, 3) if k < item):",
      "    assert time.time() < deadline, 'the other children never finished'",
      "    time.sleep(0.02)",
      "open(f'done-{item}', 'w').close()",
      "submit(item * 10)",
    ].join("\n");
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: map": [{ code: 'print(rlm.map("CHILD: times ten", [3, 1, 2]))' }, echoLastCell],
        "CHILD: times ten": [{ code: child }],
      }),
    });
    const { session, lines } = await open(rig);

    const outcome = await session.run("ROOT: map");

    expect(outcome).toMatchObject({ status: "done", text: "[30, 10, 20]" });
    // Started in item order; they finished 1, 2, 3 (each waited for the files of the smaller ones).
    expect(ofTypes(lines(), "child_spawned").map((l) => l.name)).toEqual(["map-0", "map-1", "map-2"]);
    expect(
      ofTypes(lines(), "child_finished")
        .map((l) => `${l.name}=${l.result}`)
        .sort(),
    ).toEqual(["map-0=30", "map-1=10", "map-2=20"]);
  });

  it("rlm.map's first failure cancels the other items, saying why once", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: map fails": [
          {
            code: [
              "try:",
              "    rlm.map('CHILD: item', [1, 2])",
              "except rlm.ChildError as e:",
              "    print(e.status, '|', e.reason)",
            ].join("\n"),
          },
          echoLastCell,
        ],
        // Item 1 waits (for nothing that comes) until it is cancelled; item 2's model call is refused.
        "CHILD: item": [
          (ctx) =>
            ctx.rawBody.includes("`item`: int, scalar; starts 1")
              ? { code: "import time\nwhile True: time.sleep(0.05)" }
              : { status: 400 },
        ],
      }),
    });
    const { session, lines } = await open(rig);

    const outcome = await session.run("ROOT: map fails");

    expect(outcome).toMatchObject({ status: "done", text: expect.stringMatching(/^failed \| .*400/) });
    const cancelled = ofTypes(lines(), "child_finished").filter((l) => l.status === "cancelled");
    expect(cancelled.map((l) => l.reason)).toEqual(["another item of rlm.map failed"]);
  });

  it("a cell that waits in rlm.map and times out cancels its children and starts no more", async () => {
    // Before: the map's children ran on (spending) after --cell-timeout interrupted the cell waiting for
    // them, and the items not yet started were started later. (A person's interrupt ends the turn, which
    // cancels every child anyway; a cell timeout does not.) Each child step loops until it times out.
    const hang = { code: "import time\nwhile True: time.sleep(0.05)" };
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: map then stop": [{ code: "rlm.map('CHILD: hang', [1, 2, 3], max_parallel=2)" }, echoLastCell],
        "CHILD: hang": Array.from({ length: 40 }, () => hang),
      }),
    });
    const { session, lines } = await open(rig, { cellTimeout: "3" });

    const outcome = await session.run("ROOT: map then stop");

    expect(outcome.status).toBe("done");
    // The turn is over; the children end because the map was stopped (each step of theirs loops for 3 s).
    const finished = () => ofTypes(lines(), "child_finished");
    expect(await eventually(() => finished().length === 2, 60_000)).toBe(true);
    expect(finished().map((l) => [l.status, l.reason])).toEqual([
      ["cancelled", "the cell waiting in rlm.map was interrupted"],
      ["cancelled", "the cell waiting in rlm.map was interrupted"],
    ]);
    expect(ofTypes(lines(), "child_spawned").map((l) => l.name)).toEqual(["map-0", "map-1"]);
  });

  it("a child that fails raises rlm.ChildError in the parent's code, with the reason", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: try two": [
          {
            code: [
              "for task in ['CHILD: crash', 'CHILD: refused']:",
              "    try:",
              "        rlm(task)",
              "    except rlm.ChildError as e:",
              "        print(task, '|', e.status, '|', e.reason)",
            ].join("\n"),
          },
          echoLastCell,
        ],
        "CHILD: crash": [{ code: "import os\nos._exit(3)" }],
        "CHILD: refused": [{ status: 400 }],
      }),
    });
    const { session, lines, children } = await open(rig);

    const outcome = await session.run("ROOT: try two");

    expect(outcome.status).toBe("done");
    const printed = (outcome.status === "done" ? outcome.text : "").split("\n");
    expect(printed).toHaveLength(2);
    expect(printed[0]).toMatch(/^CHILD: crash \| failed \| its kernel died during a cell: .*exit(ed)? .*3/);
    expect(printed[1]).toMatch(/^CHILD: refused \| failed \| .*400/);
    expect(ofTypes(lines(), "child_finished").map((l) => l.status)).toEqual(["failed", "failed"]);
    // A child's kernel is not restarted after a crash: the child fails and its parent decides.
    const crashed = [...children().values()].find((j) => j[0]?.title === "CHILD: crash") as JournalLine[];
    expect(ofTypes(crashed, "kernel").map((l) => l.event)).toEqual(["started", "died"]);
    expect(ofTypes(crashed, "cell_output").map((l) => l.status)).toEqual(["crashed"]);
  });

  it("past --max-depth, rlm() is refused in the code and no grandchild starts", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: go deep": [{ code: 'print(rlm("CHILD: go deeper"))' }, echoLastCell],
        "CHILD: go deeper": [
          {
            code: 'try:\n    rlm("GRANDCHILD: never")\nexcept RuntimeError as e:\n    print("refused:", e)',
          },
          echoLastCell,
        ],
        "GRANDCHILD: never": [{ text: "a grandchild ran" }],
      }),
    });
    const { session, children } = await open(rig, { maxDepth: "1" });

    const outcome = await session.run("ROOT: go deep");

    expect(outcome).toMatchObject({
      status: "done",
      text: "refused: rlm: no sub-agents at depth 1 (--max-depth 1); do this part of the work in this kernel",
    });
    const [child] = [...children().values()];
    expect(ofTypes(child ?? [], "child_spawned")).toEqual([]);
    expect(rig.model.requests.map((r) => whoAsks(r).task)).not.toContain("GRANDCHILD: never");
  });
});
