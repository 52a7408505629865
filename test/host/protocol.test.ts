// The host protocol (src/host/protocol.ts) as a client meets it on a real host's socket: params are checked
// before anything acts on them, and a bad one is refused with invalid params naming the field.
import { describe, expect, it } from "vitest";
import { checkParams, HOST_METHODS } from "../../src/host/protocol.js";
import { RPC, type RpcError } from "../../src/host/rpc.js";
import { hosted } from "../support/hosted.js";
import { useRigs } from "../support/scripted.js";

const startRig = useRigs();

async function refusal(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  const error = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as RpcError | undefined;
  if (!error) throw new Error("the call was answered, not refused");
  return { code: error.code, message: error.message };
}

describe("the host protocol", () => {
  it("refuses bad params at the socket with invalid params naming the method and the field", async () => {
    const rig = await startRig("openai", { script: [{ text: "ok" }] });
    const s = await hosted(rig);
    try {
      const cases: [string, unknown, RegExp][] = [
        ["send", {}, /^invalid params: send: text is missing$/],
        ["send", { text: 5 }, /^invalid params: send: text must be a string$/],
        [
          "send",
          { text: "hi", variables: [{ name: "_x", text: "" }] },
          /^invalid params: send: variables: .*_x/,
        ],
        ["goal", { text: 5 }, /^invalid params: goal: text must be 1 to 4000 characters$/],
        ["goal", { text: "   " }, /^invalid params: goal: text must be 1 to 4000 characters$/],
        ["heartbeat", { off: "yes" }, /^invalid params: heartbeat: off must be true or false$/],
        [
          "autonomy",
          { mode: "on", gates: ["npm test", " "] },
          /^invalid params: autonomy: gates must be a list/,
        ],
        ["attach", { after: -1 }, /^invalid params: attach: after must be a whole number >= 0$/],
        ["child.events", { id: "../x" }, /^invalid params: child.events: id must be the id of a sub-agent$/],
        ["stop", { reason: 7 }, /^invalid params: stop: reason must be a string$/],
        ["info", [1], /^invalid params: info: expected an object$/],
      ];
      for (const [method, params, message] of cases) {
        const refused = await refusal(s.client.request(method, params));
        expect(refused, method).toEqual({ code: RPC.invalidParams, message: expect.stringMatching(message) });
      }
      expect((await refusal(s.client.request("nonsense"))).code).toBe(RPC.methodNotFound);
      // Nothing was acted on: the refused heartbeat listed nothing, the refused stop left the host up.
      expect((await s.info()).goal).toBeNull();
      // A good call goes through with the checked value (the goal's text trimmed).
      expect(await s.client.call("goal", { text: "  ship it  " })).toEqual({ goal: "ship it", done: false });
      expect((await s.client.call("heartbeat")).jobs).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("knows every method the host answers, and names a missing method as not found", () => {
    expect(Object.keys(HOST_METHODS).sort()).toEqual(
      [
        "approvals",
        "approve",
        "attach",
        "autonomy",
        "checkpoints",
        "child.cancel",
        "child.events",
        "child.send",
        "clients",
        "compact",
        "detach",
        "diff",
        "goal",
        "heartbeat",
        "info",
        "interrupt",
        "learn",
        "message",
        "mode",
        "model",
        "refine",
        "refine.apply",
        "rewind",
        "rewind.points",
        "schedule.reload",
        "send",
        "shell",
        "status",
        "stop",
        "undo",
      ].sort(),
    );
    expect(checkParams("undo", undefined)).toEqual({});
    expect(() => checkParams("toString", {})).toThrow(/unknown method toString/);
  });
});
