// `--kernel ssh://...` against a private sshd on 127.0.0.1 (test/support/sshd.ts): the kernel, its
// child's and the restarted ones all start through the system ssh client with relm's Python package
// sent over the pipe, in a work directory nothing else uses, so the remote side can be checked for
// leftovers by looking at which processes sit there (over ssh, as one would on another machine).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { venvWithoutIpython } from "../../support/python-without-ipython.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { type Sshd, startSshd } from "../../support/sshd.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();
// A private copy of the build when set (other builds in the same tree replace dist/ while this runs).
const bin = process.env.RELM_TEST_BIN ? { bin: process.env.RELM_TEST_BIN } : {};
let sshd: Sshd;
let remoteDir: string;

beforeAll(async () => {
  sshd = await startSshd();
  remoteDir = mkdtempSync(join(tmpdir(), "relm-remote-work-"));
}, 60_000);

afterAll(async () => {
  await sshd?.stop();
  if (remoteDir) rmSync(remoteDir, { recursive: true, force: true });
});

/** Pids of processes over there whose working directory is the kernels' work directory. */
async function remoteKernels(): Promise<number[]> {
  const script = `for p in /proc/[0-9]*; do [ "$(readlink $p/cwd 2>/dev/null)" = ${JSON.stringify(remoteDir)} ] && echo \${p#/proc/}; done; true`;
  return (await sshd.run(script)).split(/\s+/).filter(Boolean).map(Number);
}

function rigOf(script: Parameters<typeof startRig>[1]["script"]): Promise<Rig> {
  return startRig("openai", { script }, { env: { RELM_SSH_CONFIG: sshd.config } });
}

const lines = (rig: Rig): JournalLine[] => {
  try {
    return onlyJournal(rig.home).lines;
  } catch {
    return [];
  }
};

describe("kernels over ssh", () => {
  it("runs a whole session remotely: cells, !shell, a timeout, a crash, a 20 MB --var", async () => {
    const rig = await rigOf(
      byTask({
        "ROOT: remote": [
          { code: "import os\nprint(os.getcwd(), len(big), big[:3])\n!echo shell-ok" },
          { code: "import time\ntime.sleep(120)" },
          { code: "import os\nos._exit(7)" },
          { code: "print('after the crash', len(big))" },
          { text: "all done" },
        ],
      }),
    );
    const big = join(rig.cwd, "big.txt");
    writeFileSync(big, `abc${"x".repeat(20_000_000 - 3)}`);
    const uri = `ssh://${sshd.host}${remoteDir}`;
    const result = await runRelm(
      ["run", "--kernel", uri, "--cell-timeout", "3", "--var", `big=@${big}`, "ROOT: remote"],
      { env: rig.env, cwd: rig.cwd, timeoutMs: 240_000, ...bin },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("all done");
    const bodies = rig.bodies();
    expect(bodies.join("\n")).toContain(`${remoteDir} 20000000 abc`);
    expect(bodies.join("\n")).toContain("shell-ok");
    // The prompt says where the kernel runs, not this machine's Python.
    expect(bodies[0]).toContain(`Kernel: runs through ${uri}, not on this machine`);
    expect(bodies.join("\n")).toContain("after the crash 20000000");
    const journal = lines(rig);
    const cells = journal.filter((l) => l.type === "cell_output").map((l) => l.status);
    expect(cells).toEqual(["ok", "timeout", "crashed", "ok"]);
    const timedOut = journal.filter((l) => l.type === "cell_output")[1];
    expect(String(timedOut?.note)).toMatch(/interrupted after 3 s.*intact/); // over the protocol, not killed
    expect(journal.some((l) => l.type === "kernel" && l.event === "restarted")).toBe(true);
    expect(String(journal.find((l) => l.type === "kernel")?.detail)).toContain(uri);
    // Nothing is left over there once relm has exited.
    await until(async () => ((await remoteKernels()).length === 0 ? true : undefined), 20_000);
  }, 300_000);

  it("a child from the remote kernel; snapshots come home; kill -9 of the host ends the remote kernel; --resume", async () => {
    const rig = await rigOf(
      byTask({
        "ROOT: long": [
          { code: "progress = 41\nnote = 'kept ' * 3" },
          { code: 'where = rlm("CHILD: where are you")\nprint("child said", where)' },
          // A snapshot is given up when the next cell comes first: the long cell waits until one is home.
          async () => {
            await until(() => (lines(rig).some((l) => l.type === "snapshot") ? true : undefined), 120_000);
            return { code: "import time\ntime.sleep(300)" };
          },
          (ctx) => ({ code: `print('resumed with', progress + 1, note)  # ${ctx.lastToolResult?.length}` }),
          echoLastCell,
        ],
        "CHILD: where are you": [{ code: "import os\nsubmit(os.getcwd())" }, { text: "submitted" }],
      }),
    );
    const uri = `ssh://${sshd.host}${remoteDir}`;
    const detached = await runRelm(["run", "--detach", "--kernel", uri, "ROOT: long"], {
      env: rig.env,
      cwd: rig.cwd,
      ...bin,
    });
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    await until(() => (lines(rig).filter((l) => l.type === "cell").length === 3 ? true : undefined), 180_000);
    // The child ran over there too, and its result came back through the remote kernel.
    expect(rig.bodies().join("\n")).toContain(`child said ${remoteDir}`);
    await until(() => (lines(rig).some((l) => l.type === "snapshot") ? true : undefined), 30_000);
    const dir = onlyJournal(rig.home).dir;
    const snapshot = join(dir, "snapshot");
    // A round being brought home fetches its new files before its manifest and drops old ones after,
    // so the directory is read until a round has settled: exactly the files its manifest lists.
    const manifest = await until(() => {
      const read = JSON.parse(readFileSync(join(snapshot, "manifest.json"), "utf8")) as {
        saved: string[];
        files: Record<string, string>;
      };
      const pickles = readdirSync(snapshot)
        .filter((f) => f.endsWith(".pkl"))
        .sort();
      return JSON.stringify(pickles) === JSON.stringify(Object.values(read.files).sort()) ? read : undefined;
    }, 30_000);
    // After the first cell at least (the next cell may have come before a later one could finish).
    expect(manifest.saved).toEqual(expect.arrayContaining(["note", "progress"]));
    expect(Object.keys(manifest.files).sort()).toEqual([...manifest.saved].sort());
    expect((await remoteKernels()).length).toBeGreaterThan(0); // the sleeping cell's kernel, over there
    const { pid } = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as { pid: number };
    process.kill(pid, "SIGKILL");
    await until(async () => ((await remoteKernels()).length === 0 ? true : undefined), 30_000);

    // Without --kernel: the session remembers where its kernels run.
    const resumed = await runRelm(["run", "--resume", id], {
      env: rig.env,
      cwd: rig.cwd,
      timeoutMs: 180_000,
      ...bin,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toMatch(/^resumed with 42 kept kept kept/);
    const kernels = lines(rig).filter((l) => l.type === "kernel" && l.event === "started");
    expect(kernels.length).toBeGreaterThan(1);
    expect(String(kernels.at(-1)?.detail)).toContain(uri);
    await until(async () => ((await remoteKernels()).length === 0 ? true : undefined), 20_000);
  }, 420_000);

  it("rlm(..., kernel=) starts one child elsewhere; a bad URI is the cell's ValueError", async () => {
    const rig = await rigOf(
      byTask({
        "ROOT: per call": [
          {
            code:
              'try:\n    rlm("CHILD: never", kernel="ftp://x")\nexcept ValueError as e:\n    print("refused:", e)\n' +
              'print(rlm("CHILD: via cmd", kernel="cmd:env VIA=per-call"))',
          },
          echoLastCell,
        ],
        "CHILD: via cmd": [{ code: "import os\nsubmit(os.environ['VIA'])" }, { text: "submitted" }],
      }),
    );
    const result = await runRelm(["run", "ROOT: per call"], {
      env: rig.env,
      cwd: rig.cwd,
      timeoutMs: 180_000,
      ...bin,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('refused: rlm kernel= "ftp://x": unknown kernel target');
    expect(result.stdout.trim().split("\n").at(-1)).toBe("per-call");
    const child = rig.bodies().find((b) => b.includes("CHILD: via cmd"));
    expect(child).toContain("Kernel: runs through cmd:env VIA=per-call, not on this machine");
    const root = rig.bodies().find((b) => b.includes("ROOT: per call"));
    expect(root).not.toContain("Kernel: runs through");
  }, 200_000);

  it("a child's kernel over there without IPython: its prompt says plain Python, and doctor warns", async () => {
    const rig = await rigOf(
      byTask({
        "ROOT: plain child": [{ code: "print(rlm('CHILD: plain', kernel=URI))" }, echoLastCell],
        "CHILD: plain": [
          {
            code: "import subprocess\nsubmit(subprocess.run(['echo', 'shell-ok'], capture_output=True, text=True).stdout.strip())",
          },
          { text: "submitted" },
        ],
      }),
    );
    const python = await venvWithoutIpython(rig.cwd);
    const uri = `ssh://${sshd.host}${remoteDir}?python=${encodeURIComponent(python)}`;
    const result = await runRelm(["run", "--var", `URI=${uri}`, "ROOT: plain child"], {
      env: rig.env,
      cwd: rig.cwd,
      timeoutMs: 180_000,
      ...bin,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split("\n").at(-1)).toBe("shell-ok");
    // The child's kernel reported no IPython before the child's first request: no IPython syntax promised.
    const child = rig.bodies().find((b) => b.includes("CHILD: plain"));
    expect(child).toContain(`Kernel: runs through ${uri}, not on this machine`);
    expect(child).toMatch(/- Python 3\.\d+\.\d+ without IPython: plain Python only\. `!commands`, `%magics`/);
    expect(child).not.toMatch(/with IPython \d/);
    // The root's kernel is this machine's, with IPython.
    const root = rig.bodies().find((b) => b.includes("ROOT: plain child"));
    expect(root).toMatch(/- Python 3\.\d+\.\d+ with IPython \S+: IPython syntax works/);

    const doctor = await runRelm(["doctor", "--kernel", uri], { env: rig.env, cwd: rig.cwd, ...bin });
    expect(doctor.stdout).toMatch(
      new RegExp(
        `warn\\s+kernel\\s+${reEscape(uri)}: ${reEscape(python)} \\(Python 3[.\\d]+\\) has no IPython \\(checked by running`,
      ),
    );
    expect(doctor.stdout).toContain("or name an interpreter that has it with ?python=PATH");
    const healthy = await runRelm(["doctor", "--kernel", `ssh://${sshd.host}`], {
      env: rig.env,
      cwd: rig.cwd,
      ...bin,
    });
    expect(healthy.stdout).toMatch(
      /ok\s+kernel\s+ssh:\/\/relm-test-ssh: \S+ \(Python 3[.\d]+, IPython \S+; checked by running python3 through it\)/,
    );
  }, 200_000);
});

function reEscape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
