import { describe, expect, it } from "vitest";
import { useKernels } from "./helpers.js";

const start = useKernels();

// A 1x1 PNG built in the kernel, so the test does not depend on any image library.
const PNG_CELL = `import struct, zlib
def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = (b"\\x89PNG\\r\\n\\x1a\\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
       + _chunk(b"IDAT", zlib.compress(b"\\x00\\xff\\x00\\x00")) + _chunk(b"IEND", b""))
from IPython.display import Image, display
display(Image(data=png))`;

describe("IPython kernel basics", async () => {
  const kernel = await start();

  it("reports the interpreter", () => {
    expect(kernel.python.ipython).toMatch(/^\d+\./);
    expect(kernel.python.version).toMatch(/^3\.\d+\.\d+$/);
  });

  it("prints output and the repr of a final expression without Out[n]", async () => {
    const r = await kernel.execute("print('hello')\n'a' + 'b'");
    expect(r.status).toBe("ok");
    expect(r.output).toBe("hello\n'ab'\n");
    expect(r.outputChars).toBe(r.output.length);
    expect(r.truncated).toBe(false);
    expect(r.images).toEqual([]);
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    const next = await kernel.execute("x = 1");
    expect(next.output).toBe("");
    expect(next.executionCount).toBe(r.executionCount + 1);
  });

  it("captures !cmd, %%bash, os.system and subprocess.run output in order", async () => {
    expect((await kernel.execute("!echo hi")).output).toBe("hi\n");
    expect((await kernel.execute("%%bash\necho from-bash\necho to-stderr >&2")).output).toBe(
      "from-bash\nto-stderr\n",
    );
    const sys = await kernel.execute("import os\nprint('before')\nos.system('echo x')\nprint('after')");
    expect(sys.output).toBe("before\nx\nafter\n");
    const sub = await kernel.execute("import subprocess\n_ = subprocess.run(['echo', 'y'])");
    expect(sub.output).toBe("y\n");
  });

  it("x = !cmd gives what the command printed once it ends, not when a job it left running does", async () => {
    // The job holds the output pipe for ten minutes: this used to hang the cell until its timeout.
    const r = await kernel.execute("x = !sleep 600 & echo started\nprint(x)");
    expect(r.status).toBe("ok");
    expect(r.output).toBe("['started']\n");
  }, 30_000);

  it("streams output live through onOutput", async () => {
    const chunks: string[] = [];
    const k = await start({ onOutput: (t) => chunks.push(t) });
    const r = await k.execute("for i in range(3): print(i)");
    expect(chunks.join("")).toBe(r.output);
  });

  it("reports an exception with its name, value and traceback", async () => {
    const r = await kernel.execute("def f():\n    raise ValueError('bad value')\nf()");
    expect(r.status).toBe("error");
    expect(r.error).toEqual({ name: "ValueError", value: "bad value" });
    expect(r.output).toContain("Traceback");
    expect(r.output).toContain("ValueError: bad value");
    expect(r.output.includes("\u001b[")).toBe(false); // no colours
    const syntax = await kernel.execute("def (");
    expect(syntax.status).toBe("error");
    expect(syntax.error?.name).toBe("SyntaxError");
  });

  it("runs top-level await", async () => {
    const r = await kernel.execute("import asyncio\nawait asyncio.sleep(0)\n'awaited'");
    expect(r.status).toBe("ok");
    expect(r.output).toBe("'awaited'\n");
  });

  it("returns display()ed PNG images", async () => {
    const r = await kernel.execute(PNG_CELL);
    expect(r.status).toBe("ok");
    expect(r.images).toHaveLength(1);
    expect(r.images[0]!.mimeType).toBe("image/png");
    expect(Buffer.from(r.images[0]!.data, "base64").subarray(1, 4).toString()).toBe("PNG");
  });

  it("keeps %cd and magics working", async () => {
    const r = await kernel.execute("%cd /\nimport os\nos.getcwd()");
    expect(r.output.trim().endsWith("'/'")).toBe(true);
  });
});

describe("plain exec fallback (RELM_KERNEL_ENGINE=plain)", async () => {
  const kernel = await start({ env: { ...process.env, RELM_KERNEL_ENGINE: "plain" } });

  it("reports no IPython and echoes a final expression", async () => {
    expect(kernel.python.ipython).toBeNull();
    const r = await kernel.execute("x = 1; x + 1");
    expect(r.status).toBe("ok");
    expect(r.output).toBe("2\n");
  });

  it("reports errors and rejects IPython syntax", async () => {
    const r = await kernel.execute("1/0");
    expect(r.status).toBe("error");
    expect(r.error?.name).toBe("ZeroDivisionError");
    expect(r.output).toContain("ZeroDivisionError");
    const bang = await kernel.execute("!echo hi");
    expect(bang.error?.name).toBe("SyntaxError");
  });

  it("captures subprocess output and supports top-level await", async () => {
    expect((await kernel.execute("import os\n_ = os.system('echo sub')")).output).toBe("sub\n");
    expect((await kernel.execute("import asyncio\nawait asyncio.sleep(0)\n3")).output).toBe("3\n");
  });
});
