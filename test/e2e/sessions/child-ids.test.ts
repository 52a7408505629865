// A sub-agent's id, as relm prints it (`sub-agent NAME (ID)`), pasted into the commands that take a session
// id: logs and export give that sub-agent's own transcript; attach, which follows a host, says which
// session's host to attach to instead. A real run with one child over the scripted model.
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

async function sessionWithChild() {
  const rig = await startRig("openai", {
    script: byTask({
      "ROOT: delegate": [{ code: 'print("child said:", rlm("CHILD: work"))' }, echoLastCell],
      "CHILD: work": [{ code: "print('the child cell ran')" }, echoLastCell],
    }),
  });
  const run = await runRelm(["run", "ROOT: delegate"], { env: rig.env, cwd: rig.cwd });
  expect(run.code, run.stderr).toBe(0);
  const { lines } = onlyJournal(rig.home);
  const root = String(lines[0]?.id);
  const child = String(lines.find((l) => l.type === "child_spawned")?.id);
  return { rig, root, child };
}

describe("a sub-agent's id given to logs, export, attach and stop", () => {
  it("logs and export give the sub-agent's transcript; attach and stop name the session to use", async () => {
    const { rig, root, child } = await sessionWithChild();
    const opts = { env: rig.env, cwd: rig.cwd };

    const logs = await runRelm(["logs", child.slice(0, 5)], opts);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain("print('the child cell ran')");
    expect(logs.stdout).not.toContain("child said:"); // its own transcript, not its session's

    const exported = await runRelm(["export", child, "--format", "md"], opts);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain("CHILD: work");
    expect(exported.stdout).toContain("the child cell ran");
    expect(exported.stdout).not.toContain("ROOT: delegate");
    expect(exported.stdout).not.toContain("child said:");

    const attach = await runRelm(["attach", child], opts);
    expect(attach.code).toBe(2);
    expect(attach.stderr).toContain(`${child} is a sub-agent of session ${root}`);
    expect(attach.stderr).toContain(`relm attach ${root}`);
    expect(attach.stderr).toContain(`relm logs ${child}`);
    expect(attach.stderr).not.toContain("No session matches");

    // send and stop act on a host too: the same answer, naming the command.
    const stop = await runRelm(["stop", child], opts);
    expect(stop.code).toBe(2);
    expect(stop.stderr).toContain(`relm stop ${root}`);
  });
});
