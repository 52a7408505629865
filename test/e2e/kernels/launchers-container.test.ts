// A one-shot run whose kernel is in a podman container with the host's root as an overlay
// (`--kernel container://?network=none`, podman --rootfs /:O: no image needed): the cells run in the
// container (pid namespace of their own), the project is mounted and writable at its own path, the
// answer comes back as usual, and no container is left when relm exits.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { venvWithoutIpython } from "../../support/python-without-ipython.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";

const podman = (() => {
  try {
    execFileSync("podman", ["--version"], { stdio: "ignore" });
    return process.platform === "linux";
  } catch {
    return false;
  }
})();
const startRig = useRigs();

function kernelContainers(): string[] {
  return execFileSync("podman", ["ps", "-a", "-q", "--filter", "label=relm.kernel=1"], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
}

describe.runIf(podman)("relm run --kernel container://", () => {
  it("runs the session's cells in a podman --rootfs container", async () => {
    const before = kernelContainers();
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: where": [
          {
            code:
              "import os\nopen('from-container.txt', 'w').write('made inside')\n" +
              "print('pid', os.getpid(), 'ns', os.readlink('/proc/self/ns/pid') != HOST_NS, os.getcwd())\n!echo shell-ok",
          },
          echoLastCell,
        ],
      }),
    });
    const hostNs = execFileSync("readlink", ["/proc/self/ns/pid"], { encoding: "utf8" }).trim();
    const result = await runRelm(
      ["run", "--kernel", "container://?network=none", "--var", `HOST_NS=${hostNs}`, "ROOT: where"],
      { env: rig.env, cwd: rig.cwd },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toMatch(new RegExp(`^pid \\d+ ns True ${rig.cwd}\\nshell-ok$`));
    expect(readFileSync(join(rig.cwd, "from-container.txt"), "utf8")).toBe("made inside");
    expect(kernelContainers().filter((id) => !before.includes(id))).toEqual([]);
  }, 120_000); // real daemons on 2 shared cores: generous, never a race

  it("tells the model the truth about a container's Python without IPython: plain Python, no !cmd", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: plain": [
          {
            code:
              "import subprocess, sys\nprint(sys.prefix)\n" +
              "print(subprocess.run(['echo', 'shell-ok'], capture_output=True, text=True).stdout.strip())",
          },
          { code: "!echo never" },
          echoLastCell,
        ],
      }),
    });
    // In the project, which the container mounts at its own path: what the kernel's python= names.
    const python = await venvWithoutIpython(rig.cwd);
    const uri = `container://?network=none&python=${encodeURIComponent(python)}`;
    const result = await runRelm(["run", "--kernel", uri, "ROOT: plain"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    const bodies = rig.bodies();
    expect(bodies[1]).toContain(`${join(rig.cwd, "venv-no-ipython")}\\nshell-ok`);
    // The kernel said it has no IPython before the first request: no IPython syntax is promised.
    expect(bodies[0]).toContain(`Kernel: runs through ${uri}, not on this machine`);
    expect(bodies[0]).toMatch(
      /- Python 3\.\d+\.\d+ without IPython: plain Python only\. `!commands`, `%magics`/,
    );
    expect(bodies[0]).not.toMatch(/with IPython \d/);
    expect(bodies[0]).not.toContain("not known yet");
    // As the prompt said: `!` is a syntax error in this kernel.
    expect(result.stdout).toContain("SyntaxError");
  }, 120_000);
});
