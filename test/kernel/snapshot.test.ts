import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, useKernels } from "./helpers.js";

const start = useKernels();

describe("variable snapshots", () => {
  it("saves what can be pickled, lists what cannot, and restores into a new kernel", async () => {
    const dir = path.join(await tempDir(), "snapshot");
    const first = await start();
    await first.execute(
      "import threading, collections\nbig = 'x' * 1_000_000\ncounts = collections.Counter('hello')\nlock = threading.Lock()\ndef helper():\n    return 1",
    );
    const report = await first.snapshot(dir);
    expect(report.saved.sort()).toEqual(["big", "counts"]);
    expect(report.skipped.map((s) => s.name).sort()).toEqual(["helper", "lock"]);
    expect(report.skipped.find((s) => s.name === "lock")?.reason).toMatch(/cannot be pickled/);
    expect(existsSync(path.join(dir, "big.pkl"))).toBe(true);

    const second = await start();
    const restored = await second.restore(dir);
    expect(restored.restored.map((v) => v.name).sort()).toEqual(["big", "counts"]);
    expect(restored.skipped.map((s) => s.name).sort()).toEqual(["helper", "lock"]);
    const check = await second.execute("print(len(big), counts['l'])");
    expect(check.output).toBe("1000000 2\n");
  });

  it("does not rewrite an unchanged immutable value, and drops deleted variables", async () => {
    const dir = path.join(await tempDir(), "snapshot");
    const kernel = await start();
    await kernel.execute("text = 'abc' * 1000\nitems = [1, 2]");
    await kernel.snapshot(dir);
    const before = readFileSync(path.join(dir, "text.pkl"));
    await kernel.execute("items.append(3)\ndel text");
    const report = await kernel.snapshot(dir);
    expect(report.saved).toEqual(["items"]);
    expect(existsSync(path.join(dir, "text.pkl"))).toBe(false);
    expect(before.length).toBeGreaterThan(0);
    const fresh = await start();
    await fresh.restore(dir);
    expect((await fresh.execute("items")).output).toBe("[1, 2, 3]\n");
  });
});
