import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findPython, PythonNotFoundError } from "../../src/kernel/index.js";
import { tempDir } from "./helpers.js";

describe("findPython", () => {
  it("picks an interpreter with IPython and caches the answer", async () => {
    const cacheDir = await tempDir();
    const first = await findPython(process.env, cacheDir);
    expect(path.isAbsolute(first.path)).toBe(true);
    expect(first.version).toMatch(/^3\.\d+\.\d+$/);
    expect(first.ipython).toMatch(/\S/);
    expect(first.cached).toBe(false);
    expect(existsSync(path.join(cacheDir, "python.json"))).toBe(true);
    const second = await findPython(process.env, cacheDir);
    expect(second).toEqual({ ...first, cached: true });
  });

  it("uses RELM_PYTHON first", async () => {
    const found = await findPython(process.env);
    const chosen = await findPython({ ...process.env, RELM_PYTHON: found.path });
    expect(chosen.path).toBe(found.path);
  });

  it("fails with install instructions when RELM_PYTHON is not a Python", async () => {
    const attempt = findPython({ ...process.env, RELM_PYTHON: "/nonexistent/python3" });
    await expect(attempt).rejects.toBeInstanceOf(PythonNotFoundError);
    await expect(attempt).rejects.toThrow(/apt-get install python3-ipython/);
  });

  it("falls back to an interpreter without IPython, with a warning", async () => {
    if (!existsSync("/usr/bin/python3")) return;
    const found = await findPython({ PATH: "" });
    expect(found.path).toMatch(/python/);
    if (found.ipython === null) expect(found.warning).toMatch(/IPython/);
  });

  it("does not cache an interpreter without IPython, so installing it later takes effect", async () => {
    const real = await findPython(process.env);
    const dir = await tempDir();
    // -S hides site-packages, where IPython lives: an interpreter that works but has no IPython.
    const noIPython = path.join(dir, "python-without-ipython");
    writeFileSync(noIPython, `#!/bin/sh\nexec ${real.path} -S "$@"\n`);
    chmodSync(noIPython, 0o755);
    const cacheDir = await tempDir();
    const first = await findPython({ ...process.env, RELM_PYTHON: noIPython }, cacheDir);
    expect(first.ipython).toBeNull();
    expect(first.warning).toMatch(/IPython/);
    expect(existsSync(path.join(cacheDir, "python.json"))).toBe(false);
    const second = await findPython({ ...process.env, RELM_PYTHON: noIPython }, cacheDir);
    expect(second.cached).toBe(false);
  });

  it("lists the modules the interpreter has apart from the project and PYTHONPATH", async () => {
    const extra = await tempDir();
    writeFileSync(path.join(extra, "zz_from_pythonpath.py"), "");
    const found = await findPython({ ...process.env, PYTHONPATH: extra });
    const names = found.modules?.names ?? [];
    expect(names).toEqual(expect.arrayContaining(["json", "sys", "IPython", "encodings"]));
    // PYTHONPATH is the session's, looked at when its prompt is built (kernel/skill-shadow.ts), not cached.
    expect(names).not.toContain("zz_from_pythonpath");
    expect(found.modules?.dirs).not.toContain(extra);
    expect(found.modules?.suffixes).toContain(".py");
  });

  it("probes again when a package is installed into one of the listed directories", async () => {
    const real = await findPython(process.env);
    const env = { ...process.env, PYTHONUSERBASE: await tempDir() };
    const site = execFileSync(real.path, ["-c", "import site; print(site.getusersitepackages())"], {
      env,
      encoding: "utf8",
    }).trim();
    mkdirSync(site, { recursive: true }); // the user site is on sys.path only once it exists
    const cacheDir = await tempDir();
    const first = await findPython(env, cacheDir);
    expect(first.modules?.dirs).toContain(site);
    expect(first.modules?.names).not.toContain("zz_installed");
    expect((await findPython(env, cacheDir)).cached).toBe(true);
    writeFileSync(path.join(site, "zz_installed.py"), "");
    const later = await findPython(env, cacheDir);
    expect(later.cached).toBe(false);
    expect(later.modules?.names).toContain("zz_installed");
  });
});
