import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { starts, useForking } from "./fork-helpers.js";
import { parentOf, tempDir } from "./helpers.js";

const forking = useForking();

const SECRETS = { FOO_API_KEY: "k1", GITHUB_TOKEN: "k2", MY_SECRET_X: "k3", DB_PASSWORD: "k4" };

function environOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return Object.fromEntries(entries.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));
}

describe("kernels forked from a template", () => {
  it("run cells: print, !cmd and a final expression", async () => {
    const template = await forking.template();
    const kernel = await forking.kernel(template);
    expect(starts(forking.events)[0]).toMatchObject({ forkedFrom: template.pid });
    expect(starts(forking.events)[0]?.fallback).toBeUndefined();
    expect(kernel.python).toEqual(template.python);
    const r = await kernel.execute("print('hello')\n!echo from-shell\n6 * 7");
    expect(r.status).toBe("ok");
    expect(r.output).toBe("hello\nfrom-shell\n42\n");
    expect(r.executionCount).toBe(1);
    const own = await kernel.execute("import os\nos.getpid() == os.getpgrp(), os.getppid()");
    const [group, parent] = own.output.replace(/[()\s]/g, "").split(",");
    expect(group).toBe("True"); // its own process group
    // A child of the template; on Linux through the kernel's keeper (python/relm/keeper.py).
    if (process.platform === "linux") expect(parentOf(Number(parent))).toBe(template.pid);
    else expect(Number(parent)).toBe(template.pid);
  });

  it("are isolated from each other: each starts from the pristine template", async () => {
    const template = await forking.template();
    const a = await forking.kernel(template);
    await a.execute("secret = 42\nimport json\njson.marker = 'a'");
    const b = await forking.kernel(template);
    expect(b.pid).not.toBe(a.pid);
    const r = await b.execute("secret");
    expect(r.status).toBe("error");
    expect(r.error?.name).toBe("NameError");
    expect((await b.execute("import json\nhasattr(json, 'marker')")).output).toBe("False\n");
    expect((await b.variables()).map((v) => v.name)).toEqual([]);
    expect((await a.execute("secret")).output).toBe("42\n");
  });

  it("get their own cwd and scrubbed env; neither they nor the template see secrets", async () => {
    const template = await forking.template({ env: { ...process.env, ...SECRETS } });
    const dir = await tempDir();
    writeFileSync(path.join(dir, "localmod.py"), "VALUE = 'from cwd'\n");
    const kernel = await forking.kernel(template, {
      cwd: dir,
      env: { ...process.env, ...SECRETS, RELM_FORK_TEST: "per-kernel" },
      passEnv: ["GITHUB_TOKEN"],
    });
    const r = await kernel.execute(
      "import os, json, localmod\n" +
        `print(json.dumps([os.getcwd(), os.environ.get('RELM_FORK_TEST'), sorted(k for k in os.environ if k in ${JSON.stringify(Object.keys(SECRETS))}), localmod.VALUE]))`,
    );
    expect(r.status).toBe("ok");
    expect(JSON.parse(r.output)).toEqual([realpathSync(dir), "per-kernel", ["GITHUB_TOKEN"], "from cwd"]);
    const sub = await kernel.execute("!echo $RELM_FORK_TEST $FOO_API_KEY.");
    expect(sub.output).toBe("per-kernel .\n"); // subprocesses get the kernel's env too
    for (const pid of [template.pid, kernel.pid]) {
      const environ = environOf(pid);
      for (const name of Object.keys(SECRETS)) expect(environ[name], `${name} in ${pid}`).toBeUndefined();
    }
  });

  it("import from their own PYTHONPATH, re-applied after the fork", async () => {
    const template = await forking.template();
    const extra = await tempDir();
    writeFileSync(path.join(extra, "extramod.py"), "VALUE = 'from PYTHONPATH'\n");
    const kernel = await forking.kernel(template, { env: { ...process.env, PYTHONPATH: extra } });
    expect(starts(forking.events)[0]?.forkedFrom).toBe(template.pid);
    const r = await kernel.execute("import extramod\nextramod.VALUE");
    expect(r.output).toBe("'from PYTHONPATH'\n");
  });

  it("honour outputDir and the output cap", async () => {
    const template = await forking.template();
    const outputDir = await tempDir();
    const kernel = await forking.kernel(template, { outputDir });
    const r = await kernel.execute("print('HEAD' + 'x' * 5_000_000 + 'TAIL')");
    expect(r.status).toBe("ok");
    expect(r.truncated).toBe(true);
    expect(r.outputChars).toBe(5_000_009);
    expect(r.output.length).toBeLessThan(20_000 + 300);
    expect(r.output.startsWith("HEAD")).toBe(true);
    expect(r.output.endsWith("TAIL\n")).toBe(true);
    expect(r.fullOutputPath).toBe(`${outputDir}/cell-${r.executionCount}.txt`);
    expect(readFileSync(r.fullOutputPath!, "utf8").length).toBe(5_000_009);
    expect((await kernel.execute(`len(_out[${r.executionCount}])`)).output).toBe("5000009\n");
  });

  it("answer host requests (submit, relm.calls.call) and set variables", async () => {
    const template = await forking.template();
    const calls: [string, unknown][] = [];
    const kernel = await forking.kernel(template, {
      onHostRequest: async (method, params) => {
        calls.push([method, params]);
        return method === "echo" ? { echo: params } : undefined;
      },
    });
    await kernel.execute("submit({'answer': 42})");
    // The params' shape belongs to the Python API; here only the round trip matters.
    expect(calls.map(([method]) => method)).toContain("submit");
    expect(JSON.stringify(calls)).toContain('"answer":42');
    const r = await kernel.execute("import relm.calls\nrelm.calls.call('echo', [1, 2])");
    expect(r.output).toBe("{'echo': [1, 2]}\n");
    const summary = await kernel.setVariable("data", { text: "abc" });
    expect(summary).toMatchObject({ name: "data", type: "str", size: "3 chars" });
    expect((await kernel.execute("data * 2")).output).toBe("'abcabc'\n");
  });
});
