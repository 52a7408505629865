// Processes a cell detaches from its kernel (a new session, setsid, a daemon's double fork) end with the
// kernel: at a crash and restart, when a sub-agent's forked kernel closes, and when the session ends;
// `relm doctor --fix` ends what survived anyway. Real kernels, scripted model. Linux only (keepers).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

/** A `sleep` argument nothing else on the machine has. */
function marker(): string {
  return `1000.${Math.floor(Math.random() * 9e8) + 1e8}`;
}

/** Pids of live processes with `mark` as an argument. */
function withMarker(mark: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (args.includes(mark) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") found.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

const PY_HELPERS = [
  "import os, subprocess, time",
  "def count(mark):",
  "    n = 0",
  "    for e in os.listdir('/proc'):",
  "        try:",
  "            args = open(f'/proc/{e}/cmdline', 'rb').read().split(b'\\0')",
  "            state = open(f'/proc/{e}/stat').read().rsplit(')', 1)[1].split()[0]",
  "        except (OSError, IndexError):",
  "            continue",
  "        n += mark.encode() in args and state != 'Z'",
  "    return n",
  "def wait_count(mark, n, timeout=20):",
  "    deadline = time.time() + timeout",
  "    while count(mark) != n and time.time() < deadline:",
  "        time.sleep(0.02)",
  "    return count(mark)",
  "def detach(mark):",
  "    subprocess.Popen(['sleep', mark], start_new_session=True)",
  "    os.system(f'setsid sleep {mark} &')",
  "    subprocess.run(['sh', '-c', f'(setsid sleep {mark} &) ; exit 0'])",
  "    return wait_count(mark, 3)",
].join("\n");

describe.runIf(process.platform === "linux")("processes a cell detaches", () => {
  it("end with their kernel: a crash, a sub-agent's forked kernel, the session", async () => {
    const root = marker();
    const child = marker();
    const crash = marker();
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: detach": [
          {
            code: [
              PY_HELPERS,
              `print('root', detach(${JSON.stringify(root)}))`,
              `print(rlm("CHILD: detach ${child}"))`,
              // The child's kernel is closed as it ends: what it detached goes with it.
              `print('child after', wait_count(${JSON.stringify(child)}, 0))`,
            ].join("\n"),
          },
          {
            code: [
              PY_HELPERS,
              `print('crash', detach(${JSON.stringify(crash)}))`,
              "os.kill(os.getpid(), 9)",
            ].join("\n"),
          },
          {
            code: [
              PY_HELPERS,
              `print('after restart', wait_count(${JSON.stringify(crash)}, 0), wait_count(${JSON.stringify(root)}, 0))`,
              `print('again', detach(${JSON.stringify(root)}))`,
            ].join("\n"),
          },
          { text: "done" },
        ],
        "CHILD: detach": [
          (ctx) => {
            const mark = /detach (\S+)/.exec(ctx.lastUserText ?? "")?.[1] ?? "";
            return { code: [PY_HELPERS, `print('child', detach(${JSON.stringify(mark)}))`].join("\n") };
          },
          echoLastCell,
        ],
      }),
    });
    const result = await runRelm(["run", "ROOT: detach"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    // Checked at once: relm run waits for each kernel's keeper to have ended everything below it.
    expect(withMarker(root)).toEqual([]);
    expect(withMarker(child)).toEqual([]);
    expect(withMarker(crash)).toEqual([]);

    const sessions = readdirSync(join(rig.home, "sessions"));
    const journal = readFileSync(join(rig.home, "sessions", sessions[0] ?? "", "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; output?: string; status?: string; event?: string });
    const outputs = journal.filter((l) => l.type === "cell_output").map((l) => l.output?.trim());
    expect(outputs[0]).toBe("root 3\nchild 3\nchild after 0");
    expect(journal.filter((l) => l.type === "cell_output")[1]?.status).toBe("crashed");
    expect(outputs[2]).toBe("after restart 0 0\nagain 3");
    // The sub-agent's kernel was one forked from the warm template (its keeper is the template's child).
    const children = join(rig.home, "sessions", sessions[0] ?? "", "children");
    const [kid] = readdirSync(children);
    const kidJournal = readFileSync(join(children, kid ?? "", "journal.jsonl"), "utf8");
    expect(kidJournal).toMatch(/"type":"kernel","event":"started"[^\n]*forked from template/);
  }, 120_000);

  it("relm doctor --fix ends a process a gone session left behind", async () => {
    const rig = await startRig("openai", { script: byTask({ "TASK: quick": [{ text: "ok" }] }) });
    const run = await runRelm(["run", "TASK: quick"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const [id] = readdirSync(join(rig.home, "sessions"));
    // As a kernel of that session would have started it (its keeper killed with SIGKILL, say).
    const mark = marker();
    const survivor = spawn("sleep", [mark], {
      env: { ...rig.env, RELM_KERNEL: id },
      detached: true,
      stdio: "ignore",
    });
    survivor.unref();
    // One that names a session of no RELM_HOME of this test: not this doctor's business.
    const stranger = spawn("sleep", [mark], {
      env: { ...rig.env, RELM_KERNEL: "zz0other" },
      detached: true,
      stdio: "ignore",
    });
    stranger.unref();
    try {
      await until(() => (withMarker(mark).length === 2 ? true : undefined));
      const check = await runRelm(["doctor"], { env: rig.env });
      expect(check.stdout).toMatch(
        new RegExp(`FAIL  sessions  process ${survivor.pid} \\(sleep ${mark}\\) outlived session ${id}`),
      );
      const fixed = await runRelm(["doctor", "--fix"], { env: rig.env });
      expect(fixed.stdout).toContain(
        `fixed sessions  process ${survivor.pid} (sleep ${mark}) outlived session ${id}: kill it`,
      );
      await until(() => (withMarker(mark).length === 1 ? true : undefined));
      expect(withMarker(mark)).toEqual([stranger.pid]);
      const again = await runRelm(["doctor"], { env: rig.env });
      expect(again.stdout).not.toContain("outlived session");
    } finally {
      survivor.kill("SIGKILL");
      stranger.kill("SIGKILL");
    }
  }, 60_000);
});
