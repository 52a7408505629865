import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, useKernels } from "./helpers.js";

const start = useKernels();

interface Manifest {
  saved: string[];
  files: Record<string, string>;
  unverified: string[];
  secret: Record<string, string>;
}

function manifest(dir: string): Manifest {
  return JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as Manifest;
}

function pickles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith(".pkl"));
}

/** Every byte of every file in the snapshot. */
function allBytes(dir: string): Buffer {
  return Buffer.concat(readdirSync(dir).map((f) => readFileSync(path.join(dir, f))));
}

const KEY = "sk-test-0123456789abcdefghijklmnopqrstuv";
const TOKEN = "ghp_TOKENtoken1234567890abcdef";

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
    expect(existsSync(path.join(dir, manifest(dir).files.big!))).toBe(true);

    const second = await start();
    const restored = await second.restore(dir);
    expect(restored.restored.map((v) => v.name).sort()).toEqual(["big", "counts"]);
    expect(restored.skipped.map((s) => s.name).sort()).toEqual(["helper", "lock"]);
    const check = await second.execute("print(len(big), counts['l'])");
    expect(check.output).toBe("1000000 2\n");
  });

  it("does not rewrite an unchanged value, and drops deleted variables", async () => {
    const dir = path.join(await tempDir(), "snapshot");
    const kernel = await start();
    await kernel.execute("text = 'abc' * 1000\nitems = [1, 2]\nbuf = bytearray(300_000)");
    await kernel.snapshot(dir);
    const files = manifest(dir).files;
    const text = statSync(path.join(dir, files.text!)).mtimeMs;
    const buf = statSync(path.join(dir, files.buf!)).ino;
    await kernel.execute("items.append(3)\ndel text");
    const report = await kernel.snapshot(dir);
    expect(report.saved).toEqual(["items", "buf"]);
    expect(existsSync(path.join(dir, files.text!))).toBe(false);
    expect(text).toBeGreaterThan(0);
    expect(manifest(dir).files.buf).toBe(files.buf);
    expect(statSync(path.join(dir, files.buf!)).ino).toBe(buf);
    expect(manifest(dir).files.items).not.toBe(files.items);
    const fresh = await start();
    await fresh.restore(dir);
    expect((await fresh.execute("items")).output).toBe("[1, 2, 3]\n");
  });

  it("keeps no file holding a secret the host knows, and tells what it left out", async () => {
    const dir = path.join(await tempDir(), "snapshot");
    const kernel = await start({ secrets: [KEY, TOKEN, "short"] });
    // The kernel does not have the secrets: the cell types them in, as a model might paste one.
    const probe = await kernel.execute(
      [
        "import os",
        `needle = '${KEY.slice(0, 10)}' + '${KEY.slice(10)}'`,
        "data = (str, bytes, list, dict, tuple)",
        "values = [*os.environ.values(), *(v for k, v in globals().items() if k != 'needle' and isinstance(v, data))]",
        "print(any(needle in str(v) for v in values), needle.encode() in open('/proc/self/environ', 'rb').read())",
        "del needle, values, data",
      ].join("\n"),
    );
    expect(probe.output).toBe("False False\n");
    await kernel.execute(
      [
        `key = '${KEY.slice(0, 10)}' + '${KEY.slice(10)}'`,
        `config = {'auth': {'token': '${TOKEN.slice(0, 5)}' + '${TOKEN.slice(5)}'}}`,
        `wide = ('${KEY.slice(0, 10)}' + '${KEY.slice(10)}').encode('utf-32-le')  # as numpy str arrays hold it`,
        "plain = 'short and sweet'",
        "rows = list(range(1000))",
      ].join("\n"),
    );
    const report = await kernel.snapshot(dir);
    expect(report.saved).toEqual(["plain", "rows"]);
    const reasons = Object.fromEntries(report.skipped.map((s) => [s.name, s.reason]));
    expect(Object.keys(reasons).sort()).toEqual(["config", "key", "wide"]);
    expect(reasons.key).toMatch(/secret/);
    const bytes = allBytes(dir);
    expect(bytes.includes(KEY)).toBe(false);
    expect(bytes.includes(TOKEN)).toBe(false);
    expect(pickles(dir).length).toBe(2);
    expect(manifest(dir).unverified).toEqual([]);
    expect(Object.keys(manifest(dir).secret).sort()).toEqual(["config", "key", "wide"]);

    // Unchanged, they are not written again (the kernel knows their digests, never the secrets).
    const again = await kernel.snapshot(dir);
    expect(again.skipped.map((s) => s.name).sort()).toEqual(["config", "key", "wide"]);
    expect(pickles(dir).length).toBe(2);
    // A value that no longer holds one is saved again.
    await kernel.execute("config['auth']['token'] = None");
    const later = await kernel.snapshot(dir);
    expect(later.saved).toEqual(["config", "plain", "rows"]);
    expect(allBytes(dir).includes(TOKEN)).toBe(false);

    const fresh = await start();
    const restored = await fresh.restore(dir);
    expect(restored.restored.map((v) => v.name).sort()).toEqual(["config", "plain", "rows"]);
    expect(restored.skipped.map((s) => s.name).sort()).toEqual(["key", "wide"]);
  });

  it("does not wait for ever on a FIFO a kernel names as a new snapshot file", async () => {
    // The kernel is untrusted: a cell can replace relm's own snapshot code. The host opened the FIFO to
    // look for secrets and waited for a writer for ever: no snapshot settled again, nor the session's end.
    const dir = path.join(await tempDir(), "snapshot");
    const kernel = await start({ secrets: [KEY] });
    await kernel.execute(
      [
        "import os, relm.snapshot as _s",
        "_take = _s.take",
        "def _planting(directory, *args, **kwargs):",
        "    m = _take(directory, *args, **kwargs)",
        "    os.mkfifo(os.path.join(directory, 'planted.0.pkl'))",
        "    m['saved'].append('planted'); m['files']['planted'] = 'planted.0.pkl'; m['unverified'].append('planted')",
        "    return m",
        "_s.take = _planting",
        "kept = [1, 2]",
      ].join("\n"),
    );
    const report = await kernel.snapshot(dir);
    expect(report.saved).toEqual(["kept"]);
    expect(report.skipped.map((s) => s.name)).toEqual(["planted"]);
    expect(existsSync(path.join(dir, "planted.0.pkl"))).toBe(false); // unchecked: not kept
  }, 30_000);

  it("gives way to the next cell, which does not wait for it, and the next snapshot completes", async () => {
    const dir = path.join(await tempDir(), "snapshot");
    const kernel = await start();
    await kernel.execute("n = 1");
    expect((await kernel.snapshot(dir)).saved).toEqual(["n"]);
    // Large enough that pickling it outlasts the next cell's arrival also on a loaded machine, where the
    // kernel's reader thread may wait a while for its turn (500,000 rows once completed first at load ~2).
    await kernel.execute("rows = [str(i) for i in range(2_000_000)]");
    const snapshot = kernel.snapshot(dir);
    const cell = kernel.execute("rows.append('next')\nprint(len(rows))");
    expect((await cell).output).toBe("2000001\n");
    expect(await snapshot).toEqual({ saved: [], skipped: [], bytes: 0, superseded: true });
    expect(manifest(dir).saved).toEqual(["n"]);
    const done = await kernel.snapshot(dir);
    expect(done.saved).toEqual(["n", "rows"]);
  });
});
