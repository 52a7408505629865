import { describe, expect, it } from "vitest";
import { useKernels } from "./helpers.js";

const start = useKernels();

describe("requests from Python to the host", async () => {
  const calls: [string, unknown][] = [];
  const kernel = await start({
    onHostRequest: async (method, params) => {
      calls.push([method, params]);
      if (method === "fail") throw new Error("no such thing");
      if (method === "slow") await new Promise((r) => setTimeout(r, 50));
      return method === "submit" ? undefined : { echo: params };
    },
  });

  it("returns the host's answer to relm.host.call", async () => {
    const r = await kernel.execute("import relm.host\nrelm.host.call('echo', {'a': [1, 2]})");
    expect(r.status).toBe("ok");
    expect(r.output).toBe("{'echo': {'a': [1, 2]}}\n");
  });

  it("raises HostError for an error answer", async () => {
    const r = await kernel.execute(
      "import relm.host\ntry:\n    relm.host.call('fail')\nexcept relm.host.HostError as e:\n    print('caught:', e)",
    );
    expect(r.output).toBe("caught: no such thing\n");
    const raised = await kernel.execute("relm.host.call('fail')");
    expect(raised.error).toEqual({ name: "HostError", value: "no such thing" });
  });

  it("serves several threads at once", async () => {
    const r = await kernel.execute(
      "from concurrent.futures import ThreadPoolExecutor\n" +
        "with ThreadPoolExecutor(4) as pool:\n    got = list(pool.map(lambda i: relm.host.call('slow', i)['echo'], range(8)))\ngot",
    );
    expect(r.output).toBe("[0, 1, 2, 3, 4, 5, 6, 7]\n");
  });

  it("submit() sends the value (or its repr) to the host", async () => {
    await kernel.execute("submit({'answer': 42})");
    expect(calls).toContainEqual(["submit", { value: { answer: 42 } }]);
    await kernel.execute("submit(object)");
    expect(calls).toContainEqual(["submit", { value: "<class 'object'>" }]);
  });

  it("fails cleanly without a host handler", async () => {
    const bare = await start();
    const r = await bare.execute("submit(1)");
    expect(r.error?.name).toBe("HostError");
  });
});
