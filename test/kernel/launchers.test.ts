import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/config/errors.js";
import { BOOTSTRAP, bootstrapArchive, bootstrapPayload } from "../../src/kernel/launchers/bootstrap.js";
import { LOCAL, parseKernelUri } from "../../src/kernel/launchers/index.js";
import type { LaunchContext } from "../../src/kernel/launchers/types.js";

const ctx: LaunchContext = { cwd: "/proj", inner: ["python3", "-c", "print('hi')"], env: {} };

function usage(uri: string, where?: string): string {
  try {
    parseKernelUri(uri, where);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`${uri} was accepted`);
}

describe("kernel URIs", () => {
  it("local is the default, forkable and runs the runner's argv as is", () => {
    expect(parseKernelUri("local")).toBe(LOCAL);
    expect(parseKernelUri("  ")).toBe(LOCAL);
    expect(LOCAL.forkable).toBe(true);
    expect(LOCAL.command({ ...ctx, inner: ["/usr/bin/python3", "-m", "relm.runner"] })).toEqual({
      file: "/usr/bin/python3",
      args: ["-m", "relm.runner"],
    });
  });

  it('cmd: wraps the interpreter in sh, appended or where the command says "$@"', () => {
    const l = parseKernelUri("cmd:nice -n 5");
    expect([l.scheme, l.transport, l.forkable]).toEqual(["cmd", "remote", false]);
    expect(l.command(ctx)).toEqual({
      file: "/bin/sh",
      args: ["-c", 'nice -n 5 "$@"', "relm-kernel", "python3", "-c", "print('hi')"],
    });
    const placed = parseKernelUri(`cmd:cd /data && exec "$@"`);
    expect(placed.command(ctx).args[1]).toBe(`cd /data && exec "$@"`);
    // A "$@" in quotes is an inner shell's: the program is appended for that shell to get it.
    for (const inner of [`sh -c 'cd /data && exec "$@"' sh`, `sh -c "cd /d && exec \\"\\$@\\"" sh`]) {
      expect(parseKernelUri(`cmd:${inner}`).command(ctx).args[1]).toBe(`${inner} "$@"`);
    }
  });

  it("ssh:// with user, port, workdir and options", () => {
    const l = parseKernelUri("ssh://me@gpu1:2222/~/proj?python=python3.11&control=auto");
    expect([l.scheme, l.transport, l.forkable, l.python, l.workdir]).toEqual([
      "ssh",
      "remote",
      false,
      "python3.11",
      "~/proj",
    ]);
    const cmd = l.command({ ...ctx, env: { RELM_SSH_CONFIG: "/tmp/cfg" } });
    expect(cmd.file).toBe("ssh");
    expect(cmd.args).toEqual(
      expect.arrayContaining([
        "-T",
        "BatchMode=yes",
        "-F",
        "/tmp/cfg",
        "-p",
        "2222",
        "-l",
        "me",
        "ControlMaster=auto",
      ]),
    );
    // The remote shell gets one quoted command; the host comes right after "--".
    expect(cmd.args.slice(-3)).toEqual(["--", "gpu1", `exec python3 -c 'print('"'"'hi'"'"')'`]);
    expect(parseKernelUri("ssh://gpu1/srv/data").workdir).toBe("/srv/data");
    expect(parseKernelUri("ssh://gpu1").workdir).toBeUndefined();
    const plain = parseKernelUri("ssh://[::1]").command(ctx).args;
    expect(plain).toContain("::1");
    expect(plain).not.toContain("-p");
    expect(plain).not.toContain("ControlMaster=auto");
  });

  it("bad URIs say where they came from, what is wrong and what to write", () => {
    expect(usage("ssh://host:99999")).toBe(
      '--kernel "ssh://host:99999": the port must be a number 1-65535, not "99999". Use ssh://[user@]host[:port][/workdir][?python=PATH&control=auto].',
    );
    expect(usage("ssh://", "config kernel")).toMatch(/^config kernel "ssh:\/\/": no host\. Use ssh:\/\//);
    expect(usage("ssh://me:pw@host")).toMatch(
      /passwords cannot be given in the URI\. Use a key or an ssh agent/,
    );
    expect(usage("ssh://host?pyton=x")).toMatch(/unknown option "pyton" \(known: python, control\)/);
    expect(usage("ssh://host?control=yes")).toMatch(/control must be auto or no/);
    expect(usage("ssh://-oProxyCommand=x")).toMatch(/a host cannot start with -/);
    expect(usage("cmd:")).toMatch(/"cmd:": no command after cmd:\. Use cmd:COMMAND/);
    expect(usage("gopher://x", "agent spec review")).toMatch(
      /^agent spec review "gopher:\/\/x": unknown kernel target\. Use one of: local, (.+, )?cmd:COMMAND, ssh:\/\/\[user@\]host\[:port\]\[\/workdir\](, |\.$)/,
    );
    expect(usage("slurm://?cpus=0")).toMatch(/cpus must be a positive whole number, not "0"/);
  });
});

describe("the bootstrap", () => {
  it("fits on a command line and carries relm's package with a length prefix", () => {
    expect(BOOTSTRAP.length).toBeLessThan(1024);
    expect(BOOTSTRAP).not.toContain("'");
    const archive = bootstrapArchive();
    expect(bootstrapArchive()).toBe(archive); // packed once
    const payload = bootstrapPayload({ env: { A: "1" }, firstCount: 3, workdir: "~/w" });
    const n = Number(payload.subarray(0, 12).toString());
    expect(n).toBe(archive.bytes.length);
    const settings = JSON.parse(payload.subarray(12 + n).toString());
    expect(settings).toEqual({ env: { A: "1" }, firstCount: 3, workdir: "~/w", build: archive.hash });
  });
});

describe("ssh control=auto: the directory of the shared connection's socket ($TMPDIR/relm-UID)", () => {
  // Shared with other users when TMPDIR is /tmp: a socket planted there would be taken for the
  // connection's master, and the kernel's protocol would go to whoever planted it.
  it("is made private when it is ours, and refused when it is a symlink", () => {
    const base = mkdtempSync(join(tmpdir(), "relm-tmpdir-"));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = base;
    try {
      const dir = join(base, `relm-${process.getuid?.()}`);
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      const launcher = parseKernelUri("ssh://gpu1?control=auto");
      expect(launcher.command(ctx).args).toContain(`ControlPath=${dir}/ssh-%C`);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      rmSync(dir, { recursive: true });
      symlinkSync(mkdtempSync(join(base, "elsewhere-")), dir);
      expect(() => launcher.command(ctx)).toThrow(/is not a directory/);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(base, { recursive: true, force: true });
    }
  });
});
