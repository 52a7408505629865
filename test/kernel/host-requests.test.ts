import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { until } from "../support/wait.js";
import { useKernels } from "./helpers.js";

const start = useKernels();

describe("requests from Python to the host", async () => {
  const calls: [string, unknown][] = [];
  const kernel = await start({
    onHostRequest: async (method, params) => {
      calls.push([method, params]);
      if (method === "fail") throw new Error("no such thing");
      // A slow answer, so that the threads' calls overlap at the host (what "several at once" means).
      if (method === "slow") await new Promise((r) => setTimeout(r, 50));
      return method === "submit" ? undefined : { echo: params };
    },
  });

  it("returns the host's answer to relm.calls.call", async () => {
    const r = await kernel.execute("import relm.calls\nrelm.calls.call('echo', {'a': [1, 2]})");
    expect(r.status).toBe("ok");
    expect(r.output).toBe("{'echo': {'a': [1, 2]}}\n");
  });

  it("raises HostError for an error answer", async () => {
    const r = await kernel.execute(
      "import relm.calls\ntry:\n    relm.calls.call('fail')\nexcept relm.calls.HostError as e:\n    print('caught:', e)",
    );
    expect(r.output).toBe("caught: no such thing\n");
    const raised = await kernel.execute("relm.calls.call('fail')");
    expect(raised.error).toEqual({ name: "HostError", value: "no such thing" });
  });

  it("serves several threads at once", async () => {
    const r = await kernel.execute(
      "from concurrent.futures import ThreadPoolExecutor\n" +
        "with ThreadPoolExecutor(4) as pool:\n    got = list(pool.map(lambda i: relm.calls.call('slow', i)['echo'], range(8)))\ngot",
    );
    expect(r.output).toBe("[0, 1, 2, 3, 4, 5, 6, 7]\n");
  });

  it("submit() sends the value as JSON when it can, its repr, and a pickle of it", async () => {
    await kernel.execute("submit({'answer': 42})");
    const first = calls.find(([m]) => m === "submit")?.[1] as { json: unknown; repr: string; pickle: string };
    expect(first.json).toEqual({ answer: 42 });
    expect(first.repr).toBe("{'answer': 42}");
    expect(existsSync(first.pickle)).toBe(true);
    calls.length = 0;
    await kernel.execute("import fractions\nsubmit(fractions.Fraction(1, 3))");
    const second = calls.find(([m]) => m === "submit")?.[1] as {
      json?: unknown;
      repr: string;
      pickle: string;
    };
    expect(second.json).toBeUndefined();
    expect(second.repr).toBe("Fraction(1, 3)");
    const back = await kernel.execute(
      `import pickle\nprint(pickle.load(open(${JSON.stringify(second.pickle)}, 'rb')))`,
    );
    expect(back.output).toBe("1/3\n");
  });

  it("submit() of an unpicklable, non-JSON value raises a TypeError in the cell", async () => {
    const r = await kernel.execute("import threading\nsubmit(threading.Lock())");
    expect(r.error?.name).toBe("TypeError");
    expect(r.output).toMatch(/cannot be pickled/);
  });

  it("fails cleanly without a host handler", async () => {
    const bare = await start();
    const r = await bare.execute("submit(1)");
    expect(r.error?.name).toBe("HostError");
  });

  it("aborts a waiting call's signal when the kernel that made it dies", async () => {
    let gone: AbortSignal | undefined;
    const dying = await start({
      // Never answered: like an approval nobody has answered yet.
      onHostRequest: (_method, _params, signal) => {
        gone = signal;
        return new Promise(() => {});
      },
    });
    const cell = dying.execute("import relm.calls\nrelm.calls.call('wait')");
    const signal = await until(() => gone);
    expect(signal.aborted).toBe(false);
    process.kill(dying.pid, "SIGKILL");
    expect((await cell).status).toBe("crashed");
    await until(() => (signal.aborted ? true : undefined));
  });
});
