import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSpec, SpecError } from "../../src/agent/children/specs.js";
import { checkKernelUri, escapesSandbox, kernelTarget } from "../../src/agent/kernel-api/kernel-target.js";
import { UsageError } from "../../src/config/errors.js";
import { LOCAL } from "../../src/kernel/launchers/index.js";

const project = mkdtempSync(join(tmpdir(), "relm-kernel-target-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

function spec(name: string, text: string): void {
  mkdirSync(join(project, ".relm", "agents"), { recursive: true });
  writeFileSync(join(project, ".relm", "agents", `${name}.yaml`), text);
}

describe("kernel targets of agents", () => {
  it("a spec's kernel: is checked when read, naming the file and line", () => {
    spec("gpu", "description: runs on the GPU box\nkernel: ssh://gpu1/~/proj\n");
    expect(loadSpec(project, "gpu").kernel).toBe("ssh://gpu1/~/proj");
    spec("bad", "description: broken\n\nkernel: ssh://gpu1:0\n");
    let error: unknown;
    try {
      loadSpec(project, "bad");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SpecError);
    expect((error as Error).message).toMatch(
      /bad\.yaml:3: kernel "ssh:\/\/gpu1:0": the port must be a number 1-65535/,
    );
  });

  it("checkKernelUri passes a good URI through and names the source of a bad one", () => {
    expect(checkKernelUri(undefined, "--kernel")).toBeUndefined();
    expect(checkKernelUri(" cmd:nice ", "--kernel")).toBe("cmd:nice");
    expect(() => checkKernelUri("ftp://x", "rlm kernel=")).toThrow(UsageError);
    expect(() => checkKernelUri("ftp://x", "rlm kernel=")).toThrow(
      /^rlm kernel= "ftp:\/\/x": unknown kernel target/,
    );
  });

  it("remote URIs get their own launcher and are never forked; local and sandbox are the tree's", async () => {
    const none = async () => undefined;
    const ssh = await kernelTarget("ssh://gpu1", none);
    expect([ssh.launcher?.scheme, ssh.forkable]).toEqual(["ssh", false]);
    expect(await kernelTarget(undefined, none)).toEqual({ launcher: undefined, forkable: true });
    expect(await kernelTarget("local", none)).toEqual({ launcher: undefined, forkable: true });
    const treeOwn = async () => LOCAL; // stands for the tree's sandbox launcher
    expect((await kernelTarget("sandbox", treeOwn)).launcher).toBe(LOCAL);
    await expect(kernelTarget("sandbox", none)).rejects.toThrow(/needs the session to run with --sandbox/);
  });

  it("in a sandboxed tree only the tree's own launcher and the user's URI are accepted from code", () => {
    const boxed = { sandboxed: true, userUri: undefined };
    for (const uri of ["local", "sandbox", " local "]) expect(escapesSandbox(uri, boxed)).toBe(false);
    for (const uri of ["cmd:sh", "ssh://gpu1", "container://python:3.12", "slurm://gpu", "k8s://pod"])
      expect(escapesSandbox(uri, boxed), uri).toBe(true);
    const userGave = { sandboxed: true, userUri: "ssh://gpu1/~/proj" };
    expect(escapesSandbox("ssh://gpu1/~/proj", userGave)).toBe(false);
    expect(escapesSandbox(" ssh://gpu1/~/proj ", userGave)).toBe(false);
    // Only exactly that URI: another directory or host on the same machine is code's choice.
    expect(escapesSandbox("ssh://gpu1/~/other", userGave)).toBe(true);
    expect(escapesSandbox("ssh://gpu1/~/proj?python=/tmp/x", userGave)).toBe(true);
    // Without a sandbox every launcher is the session's to use, as before.
    expect(escapesSandbox("cmd:sh", { sandboxed: false, userUri: undefined })).toBe(false);
  });
});
