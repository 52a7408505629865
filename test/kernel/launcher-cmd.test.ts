// A kernel started through `cmd:` runs the remote bootstrap and shares nothing with the host but its
// stdio: relm's package arrives over stdin, interrupts as messages, files over the protocol. So this
// checks, with a real Python on this machine, what every remote launcher (ssh, containers) relies on.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseKernelUri } from "../../src/kernel/launchers/index.js";
import { until } from "../support/wait.js";
import { tempDir, useKernels } from "./helpers.js";

const start = useKernels();

describe("a kernel through cmd:", async () => {
  const work = await tempDir();
  const outputs = path.join(work, "outputs");
  const requests: [string, unknown][] = [];
  const kernel = await start({
    cwd: work,
    launcher: parseKernelUri("cmd:env RELM_TEST_VIA=cmd"),
    outputDir: outputs,
    outputCap: 200,
    interruptGraceMs: 1000,
    onHostRequest: async (method, params) => {
      requests.push([method, params]);
      const pickle = (params as { pickle?: string }).pickle;
      if (method === "submit") return null;
      // Hand back what was sent: the kernel gets a pickle path it can read over there.
      return { value: { kind: "pickle", path: pickle } };
    },
  });

  it("runs cells and shell commands from relm's package sent over the pipe", async () => {
    const r = await kernel.execute(
      "import os, sys, relm\nprint(os.environ['RELM_TEST_VIA'], os.getcwd() == os.environ.get('PWD', os.getcwd()))\n" +
        "print(relm.__spec__.origin is None or '<relm' in str(relm.__file__ if hasattr(relm, '__file__') else '<relm'))\n!echo from-shell",
    );
    expect(r.status).toBe("ok");
    expect(r.output).toContain("cmd");
    expect(r.output).toContain("from-shell\n");
    // Imported from memory, not from relm's python/ directory on this disk.
    const where = await kernel.execute("import relm.runner as rr\nprint(rr.__loader__.__class__.__name__)");
    expect(where.output).toBe("L\n");
  });

  it("interrupts a cell over the protocol at its timeout and keeps the kernel", async () => {
    await kernel.execute("kept = 7");
    const r = await kernel.execute("print('going', flush=True)\n!sleep 30", { timeoutMs: 1000 });
    expect(r.status).toBe("timeout");
    expect(r.note).toMatch(/variables are intact/);
    expect((await kernel.execute("kept")).output).toBe("7\n");
  });

  it("restarts a crashed kernel", async () => {
    const r = await kernel.execute("import os\nos._exit(3)");
    expect(r.status).toBe("crashed");
    expect(r.note).toMatch(/exit code 3/);
    expect((await kernel.execute("1 + 1")).output).toBe("2\n");
  });

  it("streams a --var file, fetches a truncated output and pickles both ways", async () => {
    const file = path.join(work, "big.txt");
    writeFileSync(file, "y".repeat(9 << 20)); // over two 4 MB pieces
    const v = await kernel.setVariable("big", { file });
    expect(v.size).toBe(`${(9 << 20).toLocaleString("en-US")} chars`);
    const long = await kernel.execute("print('z' * 1000)");
    expect(long.truncated).toBe(true);
    expect(long.fullOutputPath).toBe(path.join(outputs, path.basename(long.fullOutputPath ?? "")));
    expect(readFileSync(long.fullOutputPath!, "utf8")).toBe(`${"z".repeat(1000)}\n`);
    const r = await kernel.execute(
      "import relm.calls, relm.handoff, pickle\np = relm.handoff.dump({'n': len(big)}, 'v')\n" +
        "back = relm.calls.call('echo', {'pickle': p})\nprint(pickle.load(open(back['value']['path'], 'rb')))",
    );
    expect(r.output).toBe(`{'n': ${9 << 20}}\n`);
    const sent = requests.find(([m]) => m === "echo")?.[1] as { pickle: string };
    expect(sent.pickle.startsWith(outputs)).toBe(true); // fetched into the session's outputs
  });

  it("snapshots stream back to this machine and restore into a new kernel", async () => {
    const dir = path.join(work, "snapshot");
    await kernel.execute("a = list(range(1000))\nb = 'bee'");
    const report = await kernel.snapshot(dir);
    expect(report.saved).toEqual(expect.arrayContaining(["a", "b", "big"]));
    const files = readdirSync(dir);
    expect(files).toContain("manifest.json");
    expect(files.filter((f) => f.endsWith(".pkl")).length).toBe(report.saved.length);
    await kernel.execute("del b");
    await kernel.snapshot(dir);
    await until(() => readdirSync(dir).filter((f) => f.endsWith(".pkl")).length === report.saved.length - 1);
    const next = await start({ cwd: work, launcher: parseKernelUri("cmd:env RELM_TEST_VIA=cmd") });
    const restored = await next.restore(dir);
    const expected = report.saved.filter((n) => n !== "b").sort();
    expect(restored.restored.map((v) => v.name).sort()).toEqual(expected);
    expect((await next.execute("sum(a)")).output).toBe("499500\n");
    expect(existsSync(path.join(dir, "manifest.json"))).toBe(true);
  });

  it('runs through a COMMAND that says "$@" itself, or whose "$@" belongs to a shell it starts', async () => {
    // docs/launchers.md's own example: the "$@" is inside the inner sh's single-quoted script, so the
    // program must still be appended for that sh to get it (it once started nothing and exited 0).
    const dir = await tempDir();
    for (const line of [`sh -c 'cd ${dir} && exec "$@"' sh`, `cd ${dir} && exec "$@"`]) {
      const k = await start({ cwd: work, launcher: parseKernelUri(`cmd:${line}`) });
      expect((await k.execute("import os\nprint(os.getcwd())")).output, line).toBe(`${dir}\n`);
    }
  });

  // A Python older than 3.10 on the other side (an old cluster's python3): 3.6 exited with no word,
  // 3.7 started and failed every cell with an AttributeError. Any such interpreter on this machine
  // (pyenv's) stands in for it.
  it.runIf(OLD_PYTHON)(
    "refuses a Python older than 3.10 over there, saying which and what to do",
    async () => {
      const line = `sh -c 'shift; exec ${OLD_PYTHON} "$@"' sh`; // python3 replaced by the old one
      const err = await start({ cwd: work, launcher: parseKernelUri(`cmd:${line}`) }).catch(
        (e: unknown) => e,
      );
      expect((err as Error).message).toMatch(
        /the kernel exited while starting \(exit code 2\)\nrelm: the kernel needs Python 3\.10\+, and \S+ is Python 3\.[6-9]\.\d+: name another interpreter \(\?python=PATH in the kernel URI\)/,
      );
    },
  );
});

/** An interpreter older than 3.10 on this machine, if there is one (pyenv's versions). */
const OLD_PYTHON = (() => {
  const root = path.join(os.homedir(), ".pyenv", "versions");
  const old = existsSync(root) ? readdirSync(root).filter((v) => /^3\.[6-9]\./.test(v)) : [];
  return old.map((v) => path.join(root, v, "bin", "python")).find((f) => existsSync(f));
})();
