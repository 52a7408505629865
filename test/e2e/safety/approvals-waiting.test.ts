// Approvals answered by a person in the line-based front ends (docs/sandbox.md, "Approvals"): a request
// of a detached session waits with nobody attached (`relm agents` says "needs approval") and is answered
// after `relm attach`; line mode asks at its prompt. Real bubblewrap (workspace mode), real kernels,
// the scripted model over HTTP.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RELM_BIN, runRelm } from "../../support/cli.js";
import { readJournalLines } from "../../support/journal.js";
import { echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();
const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");

const RUN_CELL = [
  "try:",
  '    r = request("run", "list the files the host sees", cmd="echo ran-outside")',
  "    print('GRANTED', r.output.strip())",
  "except request.Denied as e:",
  "    print('DENIED', e)",
].join("\n");

/** The lines of `text` that would move a terminal's cursor (an ESC or a carriage return in them). */
function rawControls(text: string): string[] {
  return text.split("\n").filter((l) => l.includes("\u001b") || l.includes("\r"));
}

/** A relm process whose output is collected as it comes, so a test can wait for a line. */
function started(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [RELM_BIN, ...args], {
    env,
    cwd,
    stdio: "pipe",
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += String(d);
  });
  child.stderr.on("data", (d) => {
    out += String(d);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, exited, output: () => out };
}

describe.skipIf(!linux)("approvals answered in line-based front ends", () => {
  it("a detached session's request waits ('needs approval') and is answered after relm attach", async () => {
    const rig = await startRig("openai", { script: [{ code: RUN_CELL }, echoLastCell] });
    // Whoever left the run hears that it waits: a Notification hook (yours, so on the host) keeps its input.
    const heard = join(rig.home, "notified.jsonl");
    const configFile = join(rig.home, "config.json");
    const config = JSON.parse(readFileSync(configFile, "utf8"));
    const hook = { type: "command", command: `cat >> '${heard}'; echo >> '${heard}'` };
    writeFileSync(configFile, JSON.stringify({ ...config, hooks: { Notification: [{ hooks: [hook] }] } }));
    const run = await runRelm(["run", "--detach", "--mode", "workspace", "go"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(run.code, run.stderr).toBe(0);
    const id = run.stdout.trim();
    try {
      // Nobody attached: the cell waits, and the listing says why.
      const listed = await until(async () => {
        const agents = await runRelm(["agents"], { env: rig.env, cwd: rig.cwd });
        return agents.stdout.includes("needs approval") ? agents.stdout : undefined;
      }, 60_000);
      expect(listed).toMatch(new RegExp(`${id}\\s+needs approval`));
      const told = await until(() => {
        const text = existsSync(heard) ? readFileSync(heard, "utf8") : "";
        return text.includes('"approval"') ? text : undefined;
      }, 60_000);
      expect(JSON.parse(told.trim().split("\n")[0] as string)).toMatchObject({
        hook_event_name: "Notification",
        notification_type: "approval",
        message: `${id} needs approval: run echo ran-outside (list the files the host sees)`,
      });
      const attached = started(["attach", id], rig.env, rig.cwd);
      await until(() => (attached.output().includes("approval needed") ? true : undefined), 60_000);
      expect(attached.output()).toContain("run this command outside the sandbox: echo ran-outside");
      expect(attached.output()).toContain("reason: list the files the host sees");
      attached.child.stdin.write("y\n");
      const lines = await until(() => {
        const l = readJournalLines(rig.home, id);
        return l.some((e) => e.type === "final") ? l : undefined;
      }, 60_000);
      const notice = lines.findIndex((l) => l.type === "notification" && l.kind === "approval");
      expect(notice).toBeGreaterThan(lines.findIndex((l) => l.type === "approval_request"));
      expect(notice).toBeLessThan(lines.findIndex((l) => l.type === "approval_answer"));
      const answer = lines.find((l) => l.type === "approval_answer");
      expect(answer).toMatchObject({ allow: true, by: "line", scope: "once" });
      const output = lines.find((l) => l.type === "cell_output");
      expect(String(output?.output)).toContain("GRANTED ran-outside");
      attached.child.kill("SIGINT");
      await attached.exited;
    } finally {
      await runRelm(["stop", id], { env: rig.env, cwd: rig.cwd });
    }
  });

  it("line mode asks at its prompt; 'always for this project' is remembered in RELM_HOME", async () => {
    const rig = await startRig("openai", { script: [{ code: RUN_CELL }, echoLastCell] });
    const env = { ...rig.env, RELM_NO_TUI: "1" };
    const line = started(["--mode", "workspace"], env, rig.cwd);
    line.child.stdin.write("go\n");
    await until(() => (line.output().includes("approval needed") ? true : undefined), 60_000);
    expect(line.output()).toContain(
      "answer: y = allow once, s = allow for this session, p = always for this project, n = deny",
    );
    line.child.stdin.write("p\n");
    await until(() => (line.output().includes("GRANTED ran-outside") ? true : undefined), 60_000);
    line.child.stdin.end();
    expect(await line.exited).toBe(0);
    const store = await import("node:fs").then((fs) =>
      JSON.parse(fs.readFileSync(`${rig.home}/approvals.json`, "utf8")),
    );
    expect(Object.values(store.projects)).toEqual([{ hosts: [], commands: ["echo ran-outside"], paths: [] }]);
  });

  it("shows control characters of a request as escapes (a carriage return cannot hide the command) and prints none of a cell's", async () => {
    // A cell asks to run one command, and makes the line read as another: \r goes back to the line's
    // start and ESC[2K blanks it, so a raw print would leave only "echo harmless" on the screen.
    const sly = "echo hidden-part\r\u001b[2Kecho harmless";
    const cell = [
      // And the cell's output tries OSC 52, which would put text on the user's clipboard.
      "print('copied\\x1b]52;c;ZWNobyBoaQ==\\x07?')",
      "try:",
      `    r = request("run", "just a listing\u001b[2K", cmd=${JSON.stringify(sly)})`,
      "    print('GRANTED', r.output.strip())",
      "except request.Denied as e:",
      "    print('refused:', type(e).__name__)",
    ].join("\n");
    const rig = await startRig("openai", { script: [{ code: cell }, echoLastCell] });
    const line = started(["--mode", "workspace"], { ...rig.env, RELM_NO_TUI: "1" }, rig.cwd);
    try {
      line.child.stdin.write("go\n");
      await until(() => (line.output().includes("approval needed") ? true : undefined), 60_000);
      const shown = line.output();
      expect(shown).toContain(
        "run this command outside the sandbox: echo hidden-part\\u000d\\u001b[2Kecho harmless — reason: just a listing\\u001b[2K",
      );
      expect(rawControls(shown)).toEqual([]);
      line.child.stdin.write("n\n");
      await until(() => (line.output().includes("refused: Denied") ? true : undefined), 60_000);
      expect(line.output()).toContain("copied?");
      expect(rawControls(line.output())).toEqual([]);
      line.child.stdin.end();
      expect(await line.exited).toBe(0);
    } finally {
      line.child.kill("SIGKILL");
    }
  });
});
