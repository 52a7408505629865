// An agent's kernel over its life (src/agent/kernel-api/kernel.ts AgentKernel), in this process with a real
// Python kernel and the scripted model: a kernel that dies is restarted and the model told what was
// lost, a released kernel comes back with its variables, and every start, death and restart is
// journaled and shown.
import { describe, expect, it } from "vitest";
import { pythonsOf } from "../support/cli.js";
import { alive, ofTypes, useSessions } from "../support/in-process.js";
import type { JournalLine } from "../support/journal.js";
import { echoLastCell } from "../support/router.js";
import { useRigs } from "../support/scripted.js";
import { eventually, until } from "../support/wait.js";

const startRig = useRigs();
const open = useSessions();

/** The kernel lines of a journal as [event, pid]. */
function lifecycle(lines: JournalLine[]): [unknown, unknown][] {
  return ofTypes(lines, "kernel").map((l) => [l.event, l.pid]);
}

/** What a request sent the model for the last cell it ran (a tool message). */
function lastToolText(body: unknown): string {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.at(-1);
  expect(last?.role).toBe("tool");
  const content = last?.content;
  return typeof content === "string"
    ? content
    : (content as { text?: string }[]).map((p) => p.text ?? "").join("");
}

const PID_AND_STATE = "import os\nprint(os.getpid(), greeting, 'x' in globals())";

describe("an agent's kernel", () => {
  it("that dies in a cell is restarted: inputs loaded again, the model told what was lost", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "import os\nx = 41\nprint(os.getpid())" },
        { code: "import os\nos._exit(1)" },
        { code: PID_AND_STATE },
        echoLastCell,
      ],
    });
    const { session, lines, events } = await open(rig, { var: ["greeting=hello"] });

    const outcome = await session.run("crash it");

    const journal = lines();
    const outputs = ofTypes(journal, "cell_output");
    expect(outputs.map((l) => l.status)).toEqual(["ok", "crashed", "ok"]);
    const first = Number(String(outputs[0]?.output).trim());
    const second = lifecycle(journal).at(-1)?.[1] as number;
    // The new process is journaled as started, then as the restart of the one that died.
    expect(lifecycle(journal)).toEqual([
      ["started", first],
      ["died", first],
      ["started", second],
      ["restarted", second],
    ]);
    expect(second).not.toBe(first);
    expect(alive(first)).toBe(false);
    expect(events.some((e) => e.type === "kernel" && e.event === "died")).toBe(true);
    // Said as the crash note says it ("exit code 1"), not as raw fields ("code 1 signal null").
    expect(ofTypes(journal, "kernel").find((l) => l.event === "died")?.detail).toBe("exit code 1");

    // The model reads that the kernel died and what came back: its --var input, not the variables.
    const told = lastToolText(rig.model.requests[2]?.body);
    expect(told).toMatch(/\[relm\] The kernel process died during this cell .*and was restarted\./);
    expect(told).toMatch(/All variables were lost\. The inputs greeting were loaded again\./);
    // And that is so: the next cell runs in the new kernel, with `greeting` and without `x`.
    expect(outcome).toMatchObject({ status: "done", text: `${second} hello False` });
    expect(session.kernel.state).toBe("idle");
  });

  it("that dies between cells is journaled when it dies, and restarted for the next cell", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "import os\nx = 41\nprint(os.getpid())" },
        echoLastCell,
        { code: "import os\nprint(os.getpid(), 'x' in globals())" },
        echoLastCell,
      ],
    });
    const { session, lines } = await open(rig);

    const first = await session.run("first");
    const pid = Number(first.status === "done" ? first.text : Number.NaN);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");
    // Journaled when it happens, not when the next cell finds out.
    await until(() => (lifecycle(lines()).some(([event]) => event === "died") ? true : undefined));
    expect(session.kernel.state).toBe("stopped");

    const second = await session.run("second");

    const now = lifecycle(lines()).at(-1)?.[1] as number;
    expect(lifecycle(lines())).toEqual([
      ["started", pid],
      ["died", pid],
      ["started", now],
      ["restarted", now],
    ]);
    expect(now).not.toBe(pid);
    expect(second).toMatchObject({
      status: "done",
      text: expect.stringMatching(new RegExp(`^${now} False\n`)),
    });
    const told = lastToolText(rig.model.requests[3]?.body);
    expect(told).toMatch(
      /\[relm\] The kernel process died between cells \(killed by SIGKILL\) and was restarted\. All variables were lost\./,
    );
  });

  // Known bug, kept as a test that fails until it is fixed (then drop `.fails`): a kernel that died while
  // idle is restarted inside kernel.execute(), and AgentKernel.runCell loads the --var inputs again only
  // after that cell ran. So the cell runs without them (NameError) while its note says "The inputs
  // greeting were loaded again." A crash during a cell is fine: the next cell comes after the reload.
  it("that died between cells has the inputs loaded before the next cell runs", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "import os\nprint(os.getpid())" },
        echoLastCell,
        { code: "print(greeting)" },
        echoLastCell,
      ],
    });
    const { session, lines } = await open(rig, { var: ["greeting=hi"] });
    const first = await session.run("first");
    process.kill(Number(first.status === "done" ? first.text : Number.NaN), "SIGKILL");
    await until(() => (lifecycle(lines()).some(([event]) => event === "died") ? true : undefined));

    const second = await session.run("second");

    expect(second).toMatchObject({ status: "done", text: expect.stringMatching(/^hi\n/) });
  });

  it("released while idle is stopped, and the next cell starts one with the variables restored", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "import os\nx = 41\nprint(os.getpid())" },
        { text: "set" },
        { code: "import os\nprint(x + 1, os.getpid())" },
        echoLastCell,
      ],
    });
    const { session, lines, events } = await open(rig);

    expect(await session.run("set x")).toMatchObject({ status: "done", text: "set" });
    const first = Number(String(ofTypes(lines(), "cell_output")[0]?.output).trim());
    expect(session.kernel.state).toBe("idle");

    await session.releaseKernel();

    expect(session.kernel.state).toBe("stopped");
    expect(await eventually(() => !alive(first))).toBe(true);
    expect(pythonsOf(rig.home)).toEqual([]);
    const snapshots = ofTypes(lines(), "snapshot");
    expect(snapshots.at(-1)?.saved).toBeGreaterThanOrEqual(1);

    const again = await session.run("use x");

    const [, text] = /^42 (\d+)$/.exec(again.status === "done" ? again.text : "") ?? [];
    const second = Number(text);
    expect(second).not.toBe(first);
    // A release is not a death: two starts, nothing died or restarted.
    expect(lifecycle(lines())).toEqual([
      ["started", first],
      ["started", second],
    ]);
    expect(events.filter((e) => e.type === "kernel").map((e) => "event" in e && e.event)).toEqual([
      "started",
      "started",
    ]);
  });
});
