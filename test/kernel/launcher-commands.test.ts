// The command lines of the slurm://, container:// and k8s:// launchers, their options and the
// UsageErrors of bad URIs; for k8s:// (no cluster on the test machines) also what a kernel start
// through the real kubectl says when the cluster cannot be reached, and the crash notes of a k8s:// kernel
// (through a stand-in kubectl). The launchers themselves run for
// real in launcher-slurm.test.ts, launcher-container.test.ts and test/e2e/launchers-scale.test.ts.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/config/errors.js";
import { KernelStartError } from "../../src/kernel/errors.js";
import { startKernel } from "../../src/kernel/index.js";
import { podmanUlimits } from "../../src/kernel/launchers/container.js";
import { parseKernelUri } from "../../src/kernel/launchers/index.js";
import { K8S_DEFAULT_IMAGE, parseK8s } from "../../src/kernel/launchers/k8s.js";
import { slurmExitReason, slurmQueued } from "../../src/kernel/launchers/slurm.js";
import type { LaunchContext } from "../../src/kernel/launchers/types.js";
import { tempDir, testPython, useKernels } from "./helpers.js";

const ctx: LaunchContext = { cwd: "/proj", inner: ["python3", "-c", "BOOT"], env: { PATH: "/nowhere" } };

function onPath(name: string): boolean {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .some((dir) => dir && existsSync(path.join(dir, name)));
}

function usage(uri: string): string {
  try {
    parseKernelUri(uri, "--kernel");
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`${uri} was accepted`);
}

describe("slurm://", () => {
  it("is one srun job step per kernel, with the resources asked for", () => {
    const l = parseKernelUri("slurm://gpu?cpus=4&mem=16G&time=2:00:00&gres=gpu:1&account=lab&qos=high");
    expect([l.scheme, l.transport, l.forkable, l.python]).toEqual(["slurm", "remote", false, "python3"]);
    expect(l.command(ctx)).toEqual({
      file: "srun",
      args: [
        "--unbuffered",
        "--job-name=relm-kernel",
        "--ntasks=1",
        "--nodes=1",
        "--kill-on-bad-exit=1",
        "--partition=gpu",
        "--cpus-per-task=4",
        "--mem=16G",
        "--time=2:00:00",
        "--gres=gpu:1",
        "--account=lab",
        "--qos=high",
        "--",
        "python3",
        "-c",
        "BOOT",
      ],
    });
    const plain = parseKernelUri("slurm://").command(ctx).args;
    expect(plain).not.toContain("--partition=");
    expect(plain.slice(-4)).toEqual(["--", "python3", "-c", "BOOT"]);
    expect(parseKernelUri("slurm://?python=/opt/py/bin/python3&workdir=/scratch/me").workdir).toBe(
      "/scratch/me",
    );
  });

  it("inside an allocation (SLURM_JOB_ID set) kernels are steps sharing its CPUs", () => {
    const args = parseKernelUri("slurm://?cpus=2").command({ ...ctx, env: { SLURM_JOB_ID: "77" } }).args;
    expect(args).toEqual(expect.arrayContaining(["--overlap", "--cpus-per-task=2"]));
    expect(args.some((a) => a.startsWith("--jobid"))).toBe(false); // srun takes the job from the environment
  });

  it("alloc=session needs its allocation before a command line", () => {
    const l = parseKernelUri("slurm://?alloc=session&nodes=2");
    expect(() => l.command(ctx)).toThrow(/no Slurm allocation/);
    expect(typeof l.prepare).toBe("function");
  });

  it("refuses bad options with the fix", () => {
    expect(usage("slurm://?cpus=two")).toMatch(/cpus must be a positive whole number, not "two"/);
    expect(usage("slurm://?gpus=1")).toMatch(/unknown option "gpus" \(known: cpus, mem, time, gres/);
    expect(usage("slurm://?mem=lots")).toMatch(/mem="lots" is not valid\. Give e\.g\. mem=4G/);
    expect(usage("slurm://?alloc=forever")).toMatch(/alloc must be session or job/);
    expect(usage("slurm://?nodes=2")).toMatch(/nodes= sizes the session's allocation\. Add alloc=session/);
    expect(usage("slurm://a b")).toMatch(/is not a partition name/);
    expect(usage("slurm://?workdir=rel")).toMatch(/workdir must be an absolute path/);
  });

  it("names what Slurm did to a step from srun's stderr", () => {
    const cancelled =
      "srun: Job step aborted: Waiting up to 4 seconds for job step to finish.\nslurmstepd: error: *** STEP 12.0 ON n1 CANCELLED AT 2026-12-02T21:00:00 ***\n";
    expect(slurmExitReason(cancelled)).toBe("Slurm step 12.0 on n1 was cancelled (scancel)");
    expect(
      slurmExitReason(
        "slurmstepd: error: *** JOB 7 ON n3 CANCELLED AT 2026-12-02T21:00:00 DUE TO TIME LIMIT ***",
      ),
    ).toBe("Slurm job 7 on n3 reached its time limit");
    expect(
      slurmExitReason(
        "slurmstepd: error: *** JOB 7 ON n3 CANCELLED AT 2026-12-02T21:00:00 DUE TO NODE FAILURE ***",
      ),
    ).toBe("Slurm job 7 on n3 was ended by a node failure");
    expect(slurmExitReason("srun: error: Node failure on n4\n")).toBe("the Slurm node n4 failed");
    expect(
      slurmExitReason("srun: error: Unable to allocate resources: Invalid partition name specified"),
    ).toBe("Slurm refused the kernel: Unable to allocate resources: Invalid partition name specified");
    expect(slurmExitReason("srun: error: vm: task 0: Killed\n")).toBe(
      "the Slurm step's task 0 on vm was killed (scancel, a Slurm limit, or a kill on the node)",
    );
    expect(slurmExitReason("Traceback (most recent call last):\n")).toBeUndefined();
  });

  it("tells from srun's stderr whether a kernel still waits in the queue (srun's own words, 22.05)", () => {
    const queued =
      "srun: Required node not available (down, drained or reserved)\nsrun: job 4 queued and waiting for resources\n";
    expect(slurmQueued("")).toBe(false);
    expect(slurmQueued(queued)).toBe(true);
    expect(slurmQueued(`${queued}srun: job 4 has been allocated resources\n`)).toBe(false);
    const busy = "srun: Job 9 step creation temporarily disabled, retrying (Requested nodes are busy)\n";
    expect(slurmQueued(busy)).toBe(true);
    expect(slurmQueued(`${busy}srun: Step created for job 9\n`)).toBe(false);
    expect(
      slurmQueued(`${busy}srun: Job 9 step creation still disabled, retrying (Requested nodes are busy)\n`),
    ).toBe(true);
  });
});

describe("container://", () => {
  it("runs an image with the project mounted at its own path", () => {
    const l = parseKernelUri("container://ghcr.io/me/py:3.12?engine=docker&network=none&python=python3.12");
    expect([l.scheme, l.transport, l.forkable, l.python]).toEqual([
      "container",
      "remote",
      false,
      "python3.12",
    ]);
    const { file, args } = l.command(ctx);
    expect(file).toBe("docker");
    expect(args.slice(0, 6)).toEqual(["run", "--rm", "-i", "--label", "relm.kernel=1", "--log-driver=none"]);
    expect(args).toEqual(
      expect.arrayContaining([
        "--network=none",
        "--mount",
        'type=bind,"source=/proj","target=/proj"',
        "-w",
        "/proj",
      ]),
    );
    expect(args.slice(-4)).toEqual(["ghcr.io/me/py:3.12", "python3", "-c", "BOOT"]);
    expect(args).not.toContain("--rootfs");
  });

  it("without an image, podman runs the host's root as an overlay, with limits it may set", () => {
    for (const uri of ["container://", "container:///", "container:"]) {
      const { file, args } = parseKernelUri(uri).command(ctx);
      expect(file).toBe("podman");
      expect(args.slice(-5)).toEqual(["--rootfs", "/:O", "python3", "-c", "BOOT"]);
      expect(args).toEqual(expect.arrayContaining(podmanUlimits()));
    }
    if (process.platform === "linux") {
      // The current soft limits: never above what this process has (runc could not set them).
      const limits = podmanUlimits();
      expect(limits).toEqual([
        "--ulimit",
        expect.stringMatching(/^nofile=\d+:\d+$/),
        "--ulimit",
        expect.stringMatching(/^nproc=\d+:\d+$/),
      ]);
    }
  });

  it("picks podman when it is on PATH, else docker", () => {
    const dir = path.dirname(process.execPath);
    const l = parseKernelUri("container://python:3.12-slim");
    expect(l.command({ ...ctx, env: { PATH: "/nowhere" } }).file).toBe("docker");
    expect(l.command({ ...ctx, env: { PATH: `${dir}:/usr/bin` } }).file).toMatch(/podman|docker/);
  });

  it("refuses bad options with the fix", () => {
    expect(usage("container://?engine=docker")).toMatch(
      /docker needs an image.*Name an image, e\.g\. container:\/\/python:3\.12-slim\?engine=docker/,
    );
    expect(usage("container://x?engine=lxc")).toMatch(/engine must be podman or docker/);
    expect(usage("container://-rm")).toMatch(/is not an image name/);
    expect(usage("container://x?network=a b")).toMatch(/network="a b" is not valid/);
  });
});

describe("k8s://", () => {
  const fixed = () => "relm-kernel-t1";

  it("runs a new pod per kernel with kubectl run, resources as overrides", () => {
    const l = parseK8s(
      "k8s://lab-cluster/research?image=ghcr.io/me/py:3.12&cpu=2&memory=8Gi&gpu=1",
      "--kernel",
      fixed,
    );
    expect([l.scheme, l.transport, l.forkable]).toEqual(["k8s", "remote", false]);
    const { file, args } = l.command(ctx);
    expect(file).toBe("kubectl");
    const overrides = args.find((a) => a.startsWith("--overrides="))!;
    expect(args.filter((a) => a !== overrides)).toEqual([
      "--context=lab-cluster",
      "--namespace=research",
      "run",
      "relm-kernel-t1",
      "--image=ghcr.io/me/py:3.12",
      "--restart=Never",
      "--rm",
      "-i",
      "--quiet",
      "--labels=app.kubernetes.io/managed-by=relm",
      "--command",
      "--",
      "python3",
      "-c",
      "BOOT",
    ]);
    const limits = { cpu: "2", memory: "8Gi", "nvidia.com/gpu": "1" };
    expect(JSON.parse(overrides.slice("--overrides=".length))).toEqual({
      apiVersion: "v1",
      spec: { containers: [{ name: "relm-kernel-t1", resources: { requests: limits, limits } }] },
    });
  });

  it("defaults: the current context and namespace, an official Python image, a fresh pod name", () => {
    const { args } = parseKernelUri("k8s://").command(ctx);
    expect(args[0]).toBe("run");
    expect(args[1]).toMatch(/^relm-kernel-[0-9a-f]{8}$/);
    expect(args).toContain(`--image=${K8S_DEFAULT_IMAGE}`);
    expect(args.some((a) => a.startsWith("--overrides"))).toBe(false);
    expect(parseKernelUri("k8s://").command(ctx).args[1]).not.toBe(args[1]);
    expect(parseKernelUri("k8s://team").command(ctx).args[0]).toBe("--namespace=team");
  });

  it("execs into an existing pod with pod=", () => {
    const l = parseKernelUri("k8s://research?pod=gpu-box-0&container=main&python=/opt/conda/bin/python");
    expect(l.command({ ...ctx, inner: ["/opt/conda/bin/python", "-c", "BOOT"] })).toEqual({
      file: "kubectl",
      args: [
        "--namespace=research",
        "exec",
        "-i",
        "gpu-box-0",
        "--container=main",
        "--",
        "/opt/conda/bin/python",
        "-c",
        "BOOT",
      ],
    });
  });

  it("refuses bad options with the fix", () => {
    expect(usage("k8s://Research")).toMatch(/"Research" is not a namespace name/);
    expect(usage("k8s://a/b/c")).toMatch(/too many path parts/);
    expect(usage("k8s://ns?pod=p&image=x")).toMatch(/pod= runs in an existing pod.*Leave out image/);
    expect(usage("k8s://ns?container=c")).toMatch(/container= picks a container of pod=\. Add pod=NAME/);
    expect(usage("k8s://ns?cpu=lots")).toMatch(/cpu="lots" is not valid\. Give e\.g\. cpu=2 or 500m/);
    expect(usage("k8s://ns?replicas=3")).toMatch(/unknown option "replicas"/);
  });

  it("relm doctor's preflight names a missing kubectl", async () => {
    const l = parseKernelUri("k8s://research");
    expect(await l.preflight?.({ PATH: "/nonexistent" })).toBe(
      "kubectl is not installed here (not on PATH /nonexistent)",
    );
  });

  // kubectl is not in Debian's archive, so .ci/run does not install it: without it, the start fails
  // with what is missing instead.
  it("a kernel start against an unreachable cluster fails with kubectl's reason", async () => {
    const dir = await tempDir();
    const config = path.join(dir, "kubeconfig");
    writeFileSync(
      config,
      "apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: 'https://127.0.0.1:1'}\n  name: none\n" +
        "contexts:\n- context: {cluster: none, user: u}\n  name: none\ncurrent-context: none\nusers:\n- name: u\n  user: {token: x}\n",
    );
    const err = await startKernel({
      cwd: dir,
      env: { PATH: process.env.PATH, KUBECONFIG: config },
      launcher: parseKernelUri("k8s://research"),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KernelStartError);
    expect((err as Error).message).toMatch(
      onPath("kubectl")
        ? /exited while starting[\s\S]*(127\.0\.0\.1:1|refused|Unable to connect)/
        : /^could not start kubectl \(kernel k8s:\/\/research\): kubectl is not installed here \(not on PATH\)/,
    );
  });
});

// No cluster here: a stand-in kubectl runs the pod's command on this machine and, when it is killed,
// says on stderr what the real one says then (kubectl run's "pod NS/NAME terminated (REASON)", as
// k8s.io/kubectl's run.go words it; or the API's "pods NAME not found" for a pod deleted under it). The
// kernel and its runner are real.
describe("a k8s:// kernel that dies", () => {
  const start = useKernels();

  it("says in the crash note what Kubernetes said: OOMKilled, a deleted pod", async () => {
    const dir = await tempDir();
    const says = path.join(dir, "kubectl-says");
    const kubectl = path.join(dir, "kubectl");
    writeFileSync(
      kubectl,
      `#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\n"$@"\ncode=$?\n[ $code -eq 137 ] && cat ${JSON.stringify(says)} >&2\nexit $code\n`,
      { mode: 0o755 },
    );
    const python = encodeURIComponent((await testPython()).path);
    const kernel = await start({
      cwd: dir,
      env: { PATH: `${dir}${path.delimiter}${process.env.PATH}` },
      launcher: parseK8s(`k8s://research?python=${python}`, "--kernel", () => "relm-kernel-t1"),
    });
    expect((await kernel.execute("print(6 * 7)")).output).toBe("42\n");
    const dies = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"; // as the OOM killer would
    writeFileSync(says, "error: pod research/relm-kernel-t1 terminated (OOMKilled)\n\n");
    const oom = await kernel.execute(dies);
    expect(oom.status).toBe("crashed");
    expect(oom.note).toMatch(/\(exit code 137: Kubernetes: OOMKilled\)/);
    writeFileSync(says, 'Error from server (NotFound): pods "relm-kernel-t1" not found\n');
    const deleted = await kernel.execute(dies);
    expect(deleted.note).toMatch(/\(exit code 137: Kubernetes: pods "relm-kernel-t1" not found\)/);
    expect((await kernel.execute("print('back')")).output).toBe("back\n");
  });
});

describe("a launcher whose client is missing", () => {
  it("says which program is not installed, or that the folder is gone, not 'spawn srun ENOENT'", async () => {
    const dir = await tempDir();
    const start = (uri: string, cwd = dir) =>
      startKernel({ cwd, env: { PATH: path.join(dir, "no-bin") }, launcher: parseKernelUri(uri) }).catch(
        (e: unknown) => e,
      );
    const srun = await start("slurm://");
    expect(srun).toBeInstanceOf(KernelStartError);
    expect((srun as Error).message).toBe(
      `could not start srun (kernel slurm://): srun is not installed here (not on PATH ${path.join(dir, "no-bin")})`,
    );
    // Node says ENOENT for a missing working directory too: that is said as what it is.
    const gone = path.join(dir, "removed");
    const cwd = await start("cmd:nice", gone);
    expect((cwd as Error).message).toBe(
      `could not start /bin/sh (kernel cmd:nice): the working directory ${gone} does not exist`,
    );
  });
});
