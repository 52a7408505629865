// The sandbox's settings and its bubblewrap command line, without running anything.
import { describe, expect, it } from "vitest";
import { parseKernelUri } from "../../src/kernel/launchers/index.js";
import { type BwrapPlan, bwrapArgs } from "../../src/kernel/sandbox/bwrap.js";
import { sandboxUnavailable } from "../../src/kernel/sandbox/index.js";
import { allowed, netPolicyOf, parseNetRule, settingsForMode } from "../../src/kernel/sandbox/policy.js";

describe("--allow-net values", () => {
  it("parse as HOST[:PORT], wildcards and IPv6 in brackets", () => {
    expect(parseNetRule("PyPI.org")).toEqual({ host: "pypi.org" });
    expect(parseNetRule("127.0.0.1:8080")).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(parseNetRule("*.github.com:443")).toEqual({ host: "*.github.com", port: 443 });
    expect(parseNetRule("[::1]:9000")).toEqual({ host: "::1", port: 9000 });
    expect(() => parseNetRule("fix the bug")).toThrow(/is not HOST or HOST:PORT.*--allow-net=HOST/);
    expect(() => parseNetRule("h:70000")).toThrow(/port must be 1-65535/);
    expect(netPolicyOf([])).toEqual({ kind: "none" });
    expect(netPolicyOf(["*"])).toEqual({ kind: "all" });
    expect(netPolicyOf(["a.org", "*"])).toEqual({ kind: "all" });
  });

  it("match the name and port a client asks for", () => {
    const rules = [parseNetRule("pypi.org"), parseNetRule("127.0.0.1:8080"), parseNetRule("*.github.com")];
    expect(allowed(rules, "pypi.org", 443)).toBe(true);
    expect(allowed(rules, "PYPI.ORG.", 80)).toBe(true);
    expect(allowed(rules, "evil-pypi.org", 443)).toBe(false);
    expect(allowed(rules, "127.0.0.1", 8080)).toBe(true);
    expect(allowed(rules, "127.0.0.1", 8081)).toBe(false);
    expect(allowed(rules, "api.github.com", 443)).toBe(true);
    expect(allowed(rules, "github.com", 443)).toBe(false);
    expect(allowed(rules, "notgithub.com", 443)).toBe(false);
  });

  it("make each permission mode's sandbox: none for full, the project read-only in plan", () => {
    const none = { kind: "none" } as const;
    expect(settingsForMode("full", "workspace", none)).toBeUndefined();
    expect(settingsForMode("workspace", "workspace", none)).toEqual({ mode: "workspace", net: none });
    expect(settingsForMode("plan", "strict", none)).toEqual({
      mode: "strict",
      net: none,
      readOnlyProject: true,
    });
    expect(settingsForMode("workspace", "workspace", netPolicyOf(["a.org"]))?.net).toEqual({
      kind: "list",
      rules: [{ host: "a.org" }],
    });
    expect(settingsForMode("plan", "workspace", none, ["/tmp/v.txt"])?.readable).toEqual(["/tmp/v.txt"]);
  });
});

describe("without bubblewrap", () => {
  it("the sandbox is refused with the command that installs it", () => {
    const why = sandboxUnavailable({ PATH: "/nonexistent" });
    if (process.platform === "linux")
      expect(why).toMatch(/not installed; install bubblewrap: apt-get install bubblewrap/);
    else expect(why).toBeDefined();
  });
});

describe("the kernel URI sandbox", () => {
  it("parses as the sandbox launcher's marker (opened per session), with no options", () => {
    const launcher = parseKernelUri("sandbox");
    expect(launcher).toMatchObject({ scheme: "sandbox", transport: "local", forkable: true });
    expect(() => parseKernelUri("sandbox:strict")).toThrow(/takes no options/);
  });
});

describe("the bubblewrap command line", () => {
  const plan: BwrapPlan = {
    net: "none",
    project: "/home/me/proj",
    writable: ["/home/me/.relm/sessions/S/outputs"],
    hidden: ["/home/me/.relm", "/home/me/proj/.relm-home"],
    readable: [{ src: "/work/relm/python", dest: "/home/me/.relm/python" }],
    sockets: ["/tmp/relm-0/k1.sock"],
    runFiles: [],
    devices: [],
    root: true,
    readOnly: ["/home/me/proj/.git", "/home/me/proj/lib/sub/.git"],
    pinned: ["/home/me/proj/lib", "/home/me/proj/lib/sub"],
  };
  const args = bwrapArgs(plan, ["python3", "-m", "relm.runner"], "/home/me/proj");
  const at = (...words: string[]) => {
    for (let i = 0; i < args.length; i++) if (words.every((w, j) => args[i + j] === w)) return i;
    return -1;
  };

  it("isolates pid, net and ipc, dies with relm and drops capabilities as root", () => {
    for (const flag of ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent"])
      expect(args).toContain(flag);
    expect(at("--cap-drop", "ALL")).toBeGreaterThan(-1);
    expect(bwrapArgs({ ...plan, net: "all", root: false }, ["x"], "/")).not.toContain("--unshare-net");
    expect(bwrapArgs({ ...plan, root: false }, ["x"], "/")).not.toContain("--cap-drop");
  });

  it("orders mounts parents first: hidden dirs before what is bound back into them", () => {
    const ro = at("--ro-bind", "/", "/");
    const tmp = at("--tmpfs", "/tmp");
    const home = at("--tmpfs", "/home/me/.relm");
    const outputs = at("--bind", "/home/me/.relm/sessions/S/outputs", "/home/me/.relm/sessions/S/outputs");
    const python = at("--ro-bind", "/work/relm/python", "/home/me/.relm/python");
    const project = at("--bind", "/home/me/proj", "/home/me/proj");
    const inner = at("--tmpfs", "/home/me/proj/.relm-home");
    const socket = at("--bind", "/tmp/relm-0/k1.sock", "/tmp/relm-0/k1.sock");
    expect(ro).toBeGreaterThan(-1);
    expect(tmp).toBeGreaterThan(ro);
    expect(outputs).toBeGreaterThan(home);
    expect(python).toBeGreaterThan(home);
    expect(inner).toBeGreaterThan(project); // RELM_HOME inside the project stays hidden
    expect(socket).toBeGreaterThan(tmp);
    expect(args.slice(at("--chdir"))).toEqual([
      "--chdir",
      "/home/me/proj",
      "--",
      "python3",
      "-m",
      "relm.runner",
    ]);
  });

  it("shows what the host obeys read-only over the writable project, pinned folders before them", () => {
    const project = at("--bind", "/home/me/proj", "/home/me/proj");
    const git = at("--ro-bind", "/home/me/proj/.git", "/home/me/proj/.git");
    const lib = at("--bind", "/home/me/proj/lib", "/home/me/proj/lib");
    const sub = at("--bind", "/home/me/proj/lib/sub", "/home/me/proj/lib/sub");
    const subGit = at("--ro-bind", "/home/me/proj/lib/sub/.git", "/home/me/proj/lib/sub/.git");
    expect(git).toBeGreaterThan(project);
    expect(lib).toBeGreaterThan(project);
    expect(sub).toBeGreaterThan(lib);
    expect(subGit).toBeGreaterThan(sub);
  });

  it("a project that is /tmp itself is bound over the private /tmp", () => {
    const a = bwrapArgs({ ...plan, project: "/tmp", hidden: [] }, ["x"], "/tmp");
    expect(a.indexOf("/tmp", a.indexOf("--bind"))).toBeGreaterThan(a.indexOf("--tmpfs"));
  });

  it("with an allow-list, starts the forwarder before a command and binds the proxy socket", () => {
    const a = bwrapArgs(
      {
        ...plan,
        net: { proxySocket: "/tmp/relm-0/n1.sock", forwarder: "/r/netfwd.py", python: "/usr/bin/python3" },
      },
      ["python3", "-m", "relm.runner"],
      "/home/me/proj",
    );
    expect(a).toContain("--unshare-net");
    const bind = a.indexOf("/tmp/relm-0/n1.sock");
    expect(a[bind - 1]).toBe("--bind");
    expect(a[bind + 1]).toBe("/run/relm-net/proxy.sock");
    const sh = a.indexOf("/bin/sh");
    expect(a.slice(sh + 3, sh + 8)).toEqual([
      "relm-sandbox",
      "/usr/bin/python3",
      "/r/netfwd.py",
      "/run/relm-net/proxy.sock",
      "3128",
    ]);
    expect(a.slice(-3)).toEqual(["python3", "-m", "relm.runner"]);
  });

  it("a kernel or template starts the forwarder itself: nothing in front of it", () => {
    const net = { proxySocket: "/tmp/relm-0/n1.sock", forwarder: "/r/netfwd.py", python: "/usr/bin/python3" };
    const a = bwrapArgs({ ...plan, net }, ["python3", "-m", "relm.runner"], "/home/me/proj", true);
    expect(a).not.toContain("/bin/sh");
    expect(a).not.toContain("/r/netfwd.py");
    const bind = a.indexOf("/tmp/relm-0/n1.sock");
    expect(a[bind + 1]).toBe("/run/relm-net/proxy.sock");
    expect(a.slice(a.indexOf("--") + 1)).toEqual(["python3", "-m", "relm.runner"]);
  });
});
