// A kernel in a podman container with the host's root as its filesystem (container://, --rootfs /:O):
// no image, no registry. Cells run in the container (its own pid namespace and hostname), the project
// is mounted and writable at its own path, writes elsewhere stay in the container's overlay.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseKernelUri } from "../../src/kernel/launchers/index.js";
import { venvWithoutIpython } from "../support/python-without-ipython.js";
import { until } from "../support/wait.js";
import { tempDir, useKernels } from "./helpers.js";

const podman = (() => {
  try {
    execFileSync("podman", ["--version"], { stdio: "ignore" });
    return process.platform === "linux";
  } catch {
    return false;
  }
})();
const start = useKernels();

/** Ids (12 characters) of relm's kernel containers, running or not. */
function containers(): string[] {
  const out = execFileSync("podman", ["ps", "-a", "-q", "--filter", "label=relm.kernel=1"], {
    encoding: "utf8",
  });
  return out
    .split("\n")
    .filter(Boolean)
    .map((id) => id.slice(0, 12));
}

describe.runIf(podman)("a kernel through container:// (podman --rootfs)", () => {
  it("runs in its own container, the project mounted, other writes left behind", async () => {
    const work = await tempDir();
    const kernel = await start({ cwd: work, launcher: parseKernelUri("container://?network=none") });
    const stray = path.join(path.dirname(work), `relm-container-stray-${process.pid}`);
    const r = await kernel.execute(
      `import os\nprint(os.getpid(), os.getcwd())\nopen('made-inside.txt', 'w').write('hi')\nopen(${JSON.stringify(stray)}, 'w').write('x')\n!cat /proc/1/cmdline | tr '\\\\0' ' '`,
    );
    expect(r.status).toBe("ok");
    const [pid, cwd] = r.output.split("\n")[0]!.split(" ");
    expect(cwd).toBe(work);
    expect(Number(pid)).toBeLessThan(100); // a fresh pid namespace
    expect(readFileSync(path.join(work, "made-inside.txt"), "utf8")).toBe("hi");
    expect(existsSync(stray)).toBe(false); // written to the overlay only
    const net = await kernel.execute(
      "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 22), timeout=2)\nexcept OSError as e:\n    print('no network', type(e).__name__)",
    );
    expect(net.output).toMatch(/no network/);
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("mounts a project whose path has a colon, a comma, a space or a quote in it", async () => {
    // `-v SRC:DST` splits on colons: a folder named like "run 12:30" was "incorrect volume format".
    const work = path.join(await tempDir(), 'run 12:30, "v2"');
    mkdirSync(work);
    const kernel = await start({ cwd: work, launcher: parseKernelUri("container://?network=none") });
    const r = await kernel.execute(
      "import os\nprint(os.getcwd())\n_ = open('made-inside.txt', 'w').write('hi')",
    );
    expect(r.status, r.output).toBe("ok");
    expect(r.output.trim()).toBe(work);
    expect(readFileSync(path.join(work, "made-inside.txt"), "utf8")).toBe("hi");
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("reports the Python it runs with: IPython or not (a venv without it here), as the prompt then says", async () => {
    const work = await tempDir();
    const withIpython = await start({ cwd: work, launcher: parseKernelUri("container://?network=none") });
    expect(withIpython.python.ipython).toMatch(/^\d/);
    const python = await venvWithoutIpython(work);
    const uri = `container://?network=none&python=${encodeURIComponent(python)}`;
    const plain = await start({ cwd: work, launcher: parseKernelUri(uri) });
    expect(plain.python.ipython).toBeNull();
    expect(plain.python.version).toMatch(/^3\.\d+\.\d+$/);
    const r = await plain.execute("!echo shell-ok");
    expect(r.status).toBe("error");
    expect(r.error?.name).toBe("SyntaxError");
  }, 120_000);

  it("says in the crash note that the container was killed, not only 'exit code 137'", async () => {
    let said = "";
    const kernel = await start({
      cwd: await tempDir(),
      launcher: parseKernelUri("container://?network=none"),
      onOutput: (text) => {
        said += text;
      },
    });
    const host = (await kernel.execute("import socket\nprint(socket.gethostname())")).output.trim();
    const cell = kernel.execute("import time\nprint('waiting', flush=True)\ntime.sleep(60)");
    await until(() => (said.includes("waiting") ? true : undefined), 30_000);
    execFileSync("podman", ["kill", host]); // as an operator (or the OOM killer) would
    const crashed = await cell;
    expect(crashed.status).toBe("crashed");
    expect(crashed.note).toMatch(
      /exit code 137: the container's main process was killed by SIGKILL \(podman kill or docker kill, the out-of-memory killer, or a kill inside it\)/,
    );
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("leaves no container behind when its podman client is killed, or at shutdown", async () => {
    const kernel = await start({
      cwd: await tempDir(),
      launcher: parseKernelUri("container:///?network=none"),
    });
    const id = async () => (await kernel.execute("import socket\nprint(socket.gethostname())")).output.trim();
    const first = await id();
    expect(containers()).toContain(first.slice(0, 12));
    process.kill(-kernel.pid, "SIGKILL"); // as when the host dies: only the client's group is killed here
    await until(() => (containers().includes(first.slice(0, 12)) ? undefined : true), 30_000);
    const second = await id(); // restarted in a new container
    expect(second).not.toBe(first);
    await kernel.shutdown();
    await until(() => (containers().includes(second.slice(0, 12)) ? undefined : true), 30_000);
  }, 120_000); // real daemons on 2 shared cores: generous, never a race
});
