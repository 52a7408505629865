// An approval round trip in the terminal UI (docs/sandbox.md, "Approvals"): the agent's request opens a
// dialog showing who asks, why and the exact command; "allow for this session" runs it and a second
// identical request is granted by the session's list without asking. A request of a detached session
// that waited while nobody was attached opens its dialog at `relm attach`, and deny reaches the model
// as request.Denied. An interrupt while the cell waits withdraws the request: the dialog closes, the
// cell gets KeyboardInterrupt, nothing runs. Real pty, real bubblewrap (workspace mode), the scripted model.
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SessionClient } from "../../../src/host/client.js";
import { runRelm } from "../../support/cli.js";
import { readJournalLines } from "../../support/journal.js";
import { echoLastCell } from "../../support/router.js";
import { untilJournal, useTui } from "../../support/tui.js";
import { until } from "../../support/wait.js";

const { startRig, open } = useTui();
const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");

const RUN_TWICE = [
  "for i in range(2):",
  "    try:",
  '        r = request("run", "check the host toolchain", cmd="echo via-dialog")',
  "        print('GRANTED', r.output.strip())",
  "    except request.Denied as e:",
  "        print('DENIED', e)",
].join("\n");

describe.skipIf(!linux)("approvals in the terminal UI", () => {
  it("a dialog shows the request; allow for this session grants it and the same again", async () => {
    const rig = await startRig("openai", { script: [{ code: RUN_TWICE }, echoLastCell] });
    const ui = open(rig, ["--mode", "workspace"], { cols: 140 });
    await ui.waitFor("⊡ workspace");
    await ui.type("check");
    await ui.press("enter");
    await ui.waitFor("Approval needed · run", { timeoutMs: 60_000 });
    expect(ui.screenText()).toContain("run this command outside the sandbox:");
    expect(ui.screenText()).toContain("echo via-dialog");
    expect(ui.screenText()).toContain("Reason given: check the host toolchain");
    // The dialog starts on deny; two up is "allow for this session".
    await ui.press("up");
    await ui.press("up");
    await ui.press("enter");
    await ui.waitFor(/GRANTED via-dialog[\s\S]*GRANTED via-dialog/, { where: "all", timeoutMs: 60_000 });
    const lines = await untilJournal(
      rig.home,
      (l) => l.filter((e) => e.type === "approval_answer").length === 2,
    );
    expect(lines.filter((e) => e.type === "approval_answer").map((e) => [e.by, e.scope])).toEqual([
      ["ui", "session"],
      ["policy", "once"],
    ]);
  });

  it("a detached session's waiting request opens the dialog at relm attach; deny reaches the model", async () => {
    const rig = await startRig("openai", {
      script: [{ code: RUN_TWICE.replace("range(2)", "range(1)") }, echoLastCell],
    });
    const run = await runRelm(["run", "--detach", "--mode", "workspace", "go"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(run.code, run.stderr).toBe(0);
    const id = run.stdout.trim();
    await until(
      () => (readJournalLines(rig.home, id).some((l) => l.type === "approval_request") ? true : undefined),
      60_000,
    );
    const ui = open(rig, ["attach", id], { cols: 140 });
    await ui.waitFor("Approval needed · run", { timeoutMs: 60_000 });
    await ui.press("enter"); // deny: where the dialog starts
    await ui.waitFor("DENIED request('run') for echo via-dialog was denied by the user (ui)", {
      where: "all",
      timeoutMs: 60_000,
    });
    const answer = readJournalLines(rig.home, id).find((l) => l.type === "approval_answer");
    expect(answer).toMatchObject({ allow: false, by: "ui" });
  });

  it("an interrupt while the cell waits withdraws the request: the dialog closes, the cell gets KeyboardInterrupt", async () => {
    const cell = [
      "try:",
      '    request("run", "look around", cmd="echo never-ran > ran.txt")',
      "except KeyboardInterrupt:",
      "    print('INTERRUPTED WHILE WAITING')",
      "    raise",
    ].join("\n");
    const rig = await startRig("openai", { script: [{ code: cell }, echoLastCell] });
    const run = await runRelm(["run", "--detach", "--mode", "workspace", "go"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(run.code, run.stderr).toBe(0);
    const id = run.stdout.trim();
    const ui = open(rig, ["attach", id], { cols: 140 });
    await ui.waitFor("Approval needed · run", { timeoutMs: 60_000 });
    // Another front end interrupts the session (as Esc in a second UI would).
    const other = (await SessionClient.connect(rig.home, id)) as SessionClient;
    try {
      await other.call("interrupt", {});
      const lines = await until(() => {
        const l = readJournalLines(rig.home, id);
        return l.some((e) => e.type === "cell_output") && l.some((e) => e.type === "approval_answer")
          ? l
          : undefined;
      }, 60_000);
      expect(lines.find((e) => e.type === "approval_answer")).toMatchObject({
        allow: false,
        withdrawn: true,
        note: "withdrawn: the cell that asked was interrupted",
      });
      const output = lines.find((e) => e.type === "cell_output");
      expect(output?.output).toContain("INTERRUPTED WHILE WAITING");
      expect(output?.output).toContain("KeyboardInterrupt");
      // The dialog is gone without anyone answering it, and nothing waits any more.
      await ui.waitFor((text) => !text.includes("Approval needed"), { timeoutMs: 30_000 });
      expect((await other.call("approvals", {})).pending).toEqual([]);
      expect(existsSync(`${rig.cwd}/ran.txt`)).toBe(false);
    } finally {
      other.close();
    }
  });
});
