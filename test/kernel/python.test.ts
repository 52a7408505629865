import { chmodSync, existsSync, writeFileSync } from "node:fs";
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
});
