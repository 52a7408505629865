// How a session's permission mode is chosen (flags, environment, config, the default from the cached
// bubblewrap trial), what each mode's sandbox is, how sub-agents narrow, and how a switch is remembered.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { modeOf } from "../../src/agent/mode-choice.js";
import { Permissions } from "../../src/agent/permissions.js";
import { narrower, nextMode, parseMode } from "../../src/config/permission-mode.js";
import { mergeSpec } from "../../src/config/session-spec.js";
import { rememberFlags, rememberMode, withRememberedFlags } from "../../src/host/session-flags.js";
import { bwrapArgs } from "../../src/kernel/sandbox/bwrap.js";
import { cachedProbe } from "../../src/kernel/sandbox/probe.js";
import { sessionDir } from "../../src/session/index.js";

const linux = process.platform === "linux" && existsSync("/usr/bin/bwrap");
const scratch = mkdtempSync(join(tmpdir(), "relm-mode-choice-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A bwrap that is installed but cannot make namespaces (a kernel without unprivileged user namespaces). */
function failingBwrap(): string {
  const file = join(scratch, "bwrap-fails");
  writeFileSync(
    file,
    '#!/bin/sh\n[ "$1" = "--version" ] && { echo "bubblewrap 0.8.0"; exit 0; }\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n',
  );
  chmodSync(file, 0o755);
  return file;
}

const config = { configPath: "/cfg/config.json" } as const;
const cache = () => mkdtempSync(join(scratch, "cache-"));
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, ...extra });

describe("the permission mode's words", () => {
  it("parse with the names people use, narrow and cycle", () => {
    expect(parseMode("read-only", "--mode")).toBe("plan");
    expect(parseMode("Workspace", "--mode")).toBe("workspace");
    expect(parseMode("danger-full-access", "--mode")).toBe("full");
    expect(() => parseMode("yolo", "RELM_MODE")).toThrow(
      /RELM_MODE must be plan \(read-only\), workspace or full/,
    );
    expect(narrower("full", "workspace")).toBe("workspace");
    expect(narrower("plan", "full")).toBe("plan");
    expect(["plan", "workspace", "full"].map((m) => nextMode(m as "plan"))).toEqual([
      "workspace",
      "full",
      "plan",
    ]);
  });
});

describe.skipIf(!linux)("choosing the mode", () => {
  it("flags over RELM_MODE over RELM_SANDBOX over config; --sandbox and --kernel sandbox are workspace", () => {
    const c = cache();
    expect(
      modeOf({ mode: "plan" }, { ...config, mode: "full" }, env({ RELM_MODE: "full" }), c),
    ).toMatchObject({
      mode: "plan",
      source: "flag",
    });
    expect(modeOf({}, { ...config, mode: "plan" }, env({ RELM_MODE: "full" }), c).source).toBe("environment");
    expect(modeOf({}, { ...config, mode: "plan" }, env({ RELM_SANDBOX: "off" }), c).mode).toBe("full");
    expect(modeOf({}, { ...config, mode: "plan" }, env(), c)).toMatchObject({
      mode: "plan",
      source: "config",
    });
    expect(modeOf({}, { ...config, sandbox: "off" }, env(), c).mode).toBe("full");
    expect(modeOf({ sandbox: true }, config, env(), c).mode).toBe("workspace");
    expect(modeOf({ kernel: "sandbox", mode: "plan" }, config, env(), c).mode).toBe("plan");
    expect(() => modeOf({ sandbox: true, mode: "full" }, config, env(), c)).toThrow(/give one of them/);
    // strict hides $HOME in every sandboxed mode; plan makes the project read-only.
    const strict = modeOf({ mode: "plan" }, { ...config, sandbox: "strict" }, env(), c);
    expect(strict.settings).toMatchObject({ mode: "strict", readOnlyProject: true });
  });

  it("defaults to workspace where the trial passes, full where the kernel is remote", () => {
    expect(modeOf({}, config, env(), cache())).toMatchObject({ mode: "workspace", source: "default" });
    const remote = modeOf({}, config, env(), cache(), true);
    expect(remote).toMatchObject({ mode: "full", source: "default" });
    expect(remote.warning).toBeUndefined();
    // Inside relm's own sandbox a relm is confined already.
    expect(modeOf({}, config, env({ RELM_IN_SANDBOX: "workspace" }), cache()).mode).toBe("full");
  });

  it("defaults to full with a warning where bubblewrap fails; an explicit sandboxed mode is refused there", () => {
    const broken = env({ RELM_BWRAP: failingBwrap() });
    const choice = modeOf({}, config, broken, cache());
    expect(choice.mode).toBe("full");
    expect(choice.warning).toMatch(
      /^no sandbox: bubblewrap 0\.8\.0 cannot make namespaces here \(bwrap: No permissions.*\), so kernels run with your rights \(--mode full\); to sandbox them, enable unprivileged user namespaces/,
    );
    expect(() => modeOf({ mode: "workspace" }, config, broken, cache())).toThrow(
      /--mode workspace needs the sandbox, which does not work here/,
    );
    // --allow-net needs a sandboxed mode: refused where there is none, fine in the default workspace.
    expect(() => modeOf({ allowNet: ["pypi.org"] }, config, broken, cache())).toThrow(
      /--allow-net applies to a sandboxed kernel .*the sandbox does not work here/,
    );
    expect(modeOf({ allowNet: ["pypi.org"] }, config, env(), cache()).settings?.net).toEqual({
      kind: "list",
      rules: [{ host: "pypi.org" }],
    });
  });

  it("keeps the trial's answer per user, asked again when what it depends on changes", () => {
    const c = cache();
    expect(cachedProbe(env(), c).ok).toBe(true);
    const file = join(c, "sandbox-probe.json");
    const kept = JSON.parse(readFileSync(file, "utf8"));
    // An answer under the same key is believed (no trial): proof the next start reads the file.
    writeFileSync(file, JSON.stringify({ key: kept.key, probe: { ok: false, detail: "from the cache" } }));
    expect(cachedProbe(env(), c).detail).toBe("from the cache");
    // Another bwrap is another key: tried again.
    expect(cachedProbe(env({ RELM_BWRAP: failingBwrap() }), c).ok).toBe(false);
    // relm doctor tries afresh.
    expect(cachedProbe(env(), c, true).ok).toBe(true);
  });
});

describe("each mode's sandbox and its children", () => {
  it("binds the project read-only in plan, with no writable pinned folder inside it", () => {
    const plan = {
      net: "none" as const,
      project: "/p",
      readOnlyProject: true,
      writable: ["/h/sessions/S/snapshot"],
      hidden: [],
      readable: [],
      sockets: [],
      runFiles: [],
      devices: [],
      root: false,
      readOnly: ["/p/.git"],
      pinned: ["/p/lib"],
    };
    const args = bwrapArgs(plan, ["python3"], "/p").join(" ");
    expect(args).toContain("--ro-bind /p /p");
    expect(args).not.toContain("--bind /p /p");
    expect(args).not.toContain("--bind /p/lib /p/lib");
    expect(args).toContain("--bind /h/sessions/S/snapshot /h/sessions/S/snapshot");
  });

  it("narrows what a child asks for to its parent's, and answers what the mode allows without asking", () => {
    const p = new Permissions({
      mode: "workspace",
      level: "workspace",
      net: { kind: "list", rules: [{ host: "pypi.org" }] },
    });
    expect(p.narrow("full", p.mode)).toBe("workspace");
    expect(p.narrow("plan", p.mode)).toBe("plan");
    expect(p.narrow(undefined, "plan")).toBe("plan");
    expect(p.sandboxFor("plan")).toMatchObject({ readOnlyProject: true });
    expect(p.sandboxFor("full")).toBeUndefined();
    expect(p.allows({ kind: "write", inProject: true })).toBe(true);
    expect(p.allows({ kind: "write", inProject: true }, "plan")).toBe(false);
    expect(p.allows({ kind: "write", inProject: false })).toBe(false);
    expect(p.allows({ kind: "net", host: "PyPI.org", port: 443 })).toBe(true);
    expect(p.allows({ kind: "net", host: "evil.org", port: 443 })).toBe(false);
    expect(p.allows({ kind: "run-outside" }, "full")).toBe(true);
    const seen: string[] = [];
    p.onChange((m) => seen.push(m));
    p.set("full");
    expect([p.mode, p.sandboxed, seen]).toEqual(["full", false, ["full"]]);
  });
});

describe("remembering the mode", () => {
  it("a mode given now replaces a remembered --sandbox, and a /mode switch is what later hosts run with", () => {
    expect(mergeSpec({ mode: "plan" }, { sandbox: true, model: "m" })).toEqual({ mode: "plan", model: "m" });
    expect(mergeSpec({ sandbox: true }, { mode: "full" })).toEqual({ sandbox: true });
    expect(mergeSpec({}, { mode: "full" })).toEqual({ mode: "full" });
    const home = mkdtempSync(join(scratch, "home-"));
    rememberFlags(home, "s1", { sandbox: true, model: "m1" }, "/p");
    rememberMode(home, "s1", "plan");
    expect(JSON.parse(readFileSync(join(sessionDir(home, "s1"), "flags.json"), "utf8"))).toEqual({
      model: "m1",
      mode: "plan",
    });
    expect(withRememberedFlags(home, "s1", {})).toEqual({ model: "m1", mode: "plan" });
  });
});
