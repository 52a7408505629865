// A kernel through ssh:// against a private sshd on 127.0.0.1 (test/support/sshd.ts) whose end comes
// from the other side: the connection dropped, or the kernel's process killed over there. ssh says
// only "exit 255" then (and nothing on stderr at LogLevel=ERROR), so the crash note must say what
// that means. The "remote" side is this machine, so the test can find and kill its processes.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseKernelUri } from "../../src/kernel/launchers/index.js";
import { type Sshd, sshdAvailable, startSshd } from "../support/sshd.js";
import { until } from "../support/wait.js";
import { parentOf, useKernels } from "./helpers.js";

let sshd: Sshd;
beforeAll(async () => {
  if (sshdAvailable()) sshd = await startSshd();
});
afterAll(async () => {
  await sshd?.stop();
});
const start = useKernels(); // registered after sshd's hooks: its kernels end first

const DROPPED =
  /exit code 255: the ssh connection to relm-test-ssh was lost, or the kernel's process over there was killed/;

/** The runner's pid over there, and the sshd process serving its connection. */
async function remoteSide(kernel: Awaited<ReturnType<typeof start>>) {
  const r = await kernel.execute("import os\nprint(os.getpid())");
  const runner = Number(r.output.trim());
  let session = parentOf(runner);
  while (session && !readFileSync(`/proc/${session}/cmdline`, "utf8").startsWith("sshd:")) {
    session = parentOf(session);
  }
  return { runner, session: session! };
}

describe.runIf(sshdAvailable())("a kernel through ssh:// ended from the other side", () => {
  const uri = () => `ssh://${sshd.host}?python=/usr/bin/python3`;

  it("names a lost connection in the crash note, then runs on a new one", async () => {
    let said = "";
    const kernel = await start({
      env: { ...process.env, RELM_SSH_CONFIG: sshd.config },
      launcher: parseKernelUri(uri()),
      onOutput: (text) => {
        said += text;
      },
    });
    const { session } = await remoteSide(kernel);
    expect(session).toBeGreaterThan(1);
    const cell = kernel.execute("import time\nprint('waiting', flush=True)\ntime.sleep(60)");
    await until(() => (said.includes("waiting") ? true : undefined), 30_000); // the cell runs over there
    process.kill(session, "SIGKILL"); // the connection's server side goes: as a network drop does
    const crashed = await cell;
    expect(crashed.status).toBe("crashed");
    expect(crashed.note).toMatch(DROPPED);
    expect((await kernel.execute("print(6 * 7)")).output.trim()).toBe("42");
  }, 120_000); // real sshd on 2 shared cores: generous, never a race

  it("names a kernel killed over there the same way (ssh cannot tell the two apart)", async () => {
    const kernel = await start({
      env: { ...process.env, RELM_SSH_CONFIG: sshd.config },
      launcher: parseKernelUri(uri()),
    });
    const { runner } = await remoteSide(kernel);
    const cell = kernel.execute("import time\ntime.sleep(60)");
    process.kill(runner, "SIGKILL");
    const crashed = await cell;
    expect(crashed.status).toBe("crashed");
    expect(crashed.note).toMatch(DROPPED);
  }, 120_000); // real sshd on 2 shared cores: generous, never a race
});
