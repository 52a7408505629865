// The turn loop (src/agent/core/loop.ts) in this process, through an Agent made as the CLI makes one:
// the scripted model over real HTTP on 127.0.0.1 and a real Python kernel. What the loop journals, what
// it sends back to the model, and that a failed or cut-off model answer is an outcome, never a throw
// and never a final answer.
import { describe, expect, it } from "vitest";
import { ofTypes, useSessions } from "../support/in-process.js";
import { echoLastCell } from "../support/router.js";
import { useRigs } from "../support/scripted.js";

const startRig = useRigs();
const open = useSessions();

interface WireMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

/** The OpenAI chat messages of a request the scripted model received. */
function messagesOf(body: unknown): WireMessage[] {
  return (body as { messages: WireMessage[] }).messages;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return (content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("");
}

/** Journal types the loop itself writes for a turn (kernel, snapshot and checkpoint lines left out). */
const LOOP_TYPES = ["user", "model_request", "model_response", "cell", "cell_output", "final"];

describe("the turn loop", () => {
  it("runs the cell the model asks for, journals it in order, and sends its output back", async () => {
    const rig = await startRig("openai", { script: [{ code: "x = 6 * 7\nprint(x)" }, echoLastCell] });
    const { session, lines } = await open(rig);

    const outcome = await session.run("compute the answer");

    expect(outcome).toEqual({ status: "done", text: "42", submitted: false });
    const journal = lines();
    expect(ofTypes(journal, ...LOOP_TYPES).map((l) => l.type)).toEqual([
      "user",
      "model_request",
      "model_response",
      "cell",
      "cell_output",
      "model_request",
      "model_response",
      "final",
    ]);
    const [response] = ofTypes(journal, "model_response");
    const callId = (response?.toolCalls as { id: string }[] | undefined)?.[0]?.id;
    expect(callId).toMatch(/^call_/);
    expect(ofTypes(journal, "cell")[0]).toMatchObject({ callId, code: "x = 6 * 7\nprint(x)" });
    expect(ofTypes(journal, "cell_output")[0]).toMatchObject({ callId, status: "ok", output: "42\n" });
    expect(ofTypes(journal, "final")[0]).toMatchObject({ text: "42" });

    // The second request extends the first (append-only, for the prompt cache) with the model's call and
    // the cell's output answering it by id.
    expect(rig.model.requests).toHaveLength(2);
    const first = messagesOf(rig.model.requests[0]?.body);
    const second = messagesOf(rig.model.requests[1]?.body);
    expect(second.slice(0, first.length)).toEqual(first);
    expect(first.some((m) => m.role === "tool")).toBe(false);
    const [call, result] = second.slice(first.length);
    expect(call?.tool_calls?.[0]).toMatchObject({ id: callId, function: { name: "ipython" } });
    expect(result).toMatchObject({ role: "tool", tool_call_id: callId });
    expect(textOf(result?.content).trim()).toBe("42");
  });

  it("a cell that raises sends its traceback to the model, and the turn goes on", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "def half_of(n):\n    return n / 0\nhalf_of(8)" },
        (ctx) =>
          /ZeroDivisionError/.test(ctx.lastToolResult ?? "")
            ? { code: "print('recovered')" }
            : { text: "the traceback never came back" },
        echoLastCell,
      ],
    });
    const { session, lines } = await open(rig);

    const outcome = await session.run("divide");

    expect(outcome).toMatchObject({ status: "done", text: "recovered" });
    const outputs = ofTypes(lines(), "cell_output");
    expect(outputs.map((l) => l.status)).toEqual(["error", "ok"]);
    const sent = messagesOf(rig.model.requests[1]?.body).at(-1);
    expect(sent?.role).toBe("tool");
    // The whole traceback: the exception, and the frame it came from.
    expect(textOf(sent?.content)).toMatch(/ZeroDivisionError: division by zero/);
    expect(textOf(sent?.content)).toMatch(/half_of/);
  });

  it("a model request that fails is an outcome and an event, and the next turn works", async () => {
    const midStream = { failed: { code: "server_error", message: "the model fell over" } };
    const rig = await startRig(
      "openai",
      {
        script: [
          { status: 500 },
          { status: 500 },
          { drop: true, text: "half an ans" },
          { drop: true, text: "half an ans" },
          midStream,
          midStream,
          { status: 400 },
          { text: "back again" },
        ],
      },
      { config: { retry: { baseMs: 5, maxMs: 50, maxAttempts: 2 } } },
    );
    const { session, lines, events } = await open(rig);

    // HTTP 500 on every attempt.
    expect(await session.run("first")).toMatchObject({
      status: "error",
      error: { kind: "server", status: 500, attempts: 2 },
    });
    // A stream cut off in the middle, on every attempt.
    expect(await session.run("second")).toMatchObject({
      status: "error",
      error: { kind: "stream", attempts: 2 },
    });
    // A stream that starts (HTTP 200) and then reports an error, on every attempt.
    const midway = await session.run("third");
    expect(midway).toMatchObject({ status: "error", error: { kind: "server", attempts: 2 } });
    expect(midway.status === "error" && midway.message).toMatch(/mid-stream: .*the model fell over/);
    // A request the server refuses is not tried again.
    expect(await session.run("fourth")).toMatchObject({
      status: "error",
      error: { kind: "bad_request", status: 400, attempts: 1 },
    });
    expect(await session.run("fifth")).toMatchObject({ status: "done", text: "back again" });

    const journal = lines();
    expect(ofTypes(journal, "model_error").map((l) => l.kind)).toEqual([
      "server",
      "stream",
      "server",
      "bad_request",
    ]);
    expect(ofTypes(journal, "model_retry")).toHaveLength(3);
    // Only the last turn has a final answer: half an answer from a broken stream is never one.
    expect(ofTypes(journal, "final").map((l) => l.text)).toEqual(["back again"]);
    expect(events.filter((e) => e.type === "model_error")).toHaveLength(4);
    expect(rig.model.requests).toHaveLength(8);
  });

  it("an answer cut off at the output limit is continued, never passed off as final", async () => {
    // gpt-4-turbo may write 4,096 tokens, which relm asks for: the scripted model stops its answer there
    // (finish_reason "length"), in the middle of text or of a tool call's arguments.
    const long = "c".repeat(4096 * 4 + 10);
    const rig = await startRig(
      "openai",
      {
        script: [
          { text: long },
          { text: "-done" },
          { code: `print(${JSON.stringify(long)})` },
          { text: "short cells from now on" },
          { text: long },
          { text: long },
          { text: long },
          { text: long },
        ],
      },
      { env: { RELM_MODEL: "gpt-4-turbo" } },
    );
    // Without --max-tokens an OpenAI request leaves the answer's length to the server; with a budget far
    // above it, relm asks for the model's own limit.
    const { session, lines } = await open(rig, { maxTokens: "1000000" });

    // Cut off once: continued, and the parts are joined into the answer.
    const joined = await session.run("write a long answer");
    expect(joined.status).toBe("done");
    // Compared as a length and a tail: a failure would print 16 KB of "c".
    const text = joined.status === "done" ? joined.text : "";
    expect([text.length, text.slice(-9), /^c+-done$/.test(text)]).toEqual([4096 * 4 + 5, "cccc-done", true]);
    expect(rig.model.requests[0]?.body).toMatchObject({ max_tokens: 4096 });
    expect(textOf(messagesOf(rig.model.requests[1]?.body).at(-1)?.content)).toMatch(
      /cut off at its output limit \(4096 tokens\)\. Continue exactly where it stopped/,
    );

    // A tool call cut off in its arguments is not run: the model is told why.
    const cell = await session.run("write a long cell");
    expect(cell).toMatchObject({ status: "done", text: "short cells from now on" });
    const told = messagesOf(rig.model.requests[3]?.body).at(-1);
    expect(told?.role).toBe("tool");
    expect(textOf(told?.content)).toMatch(/not valid JSON.*cut off at its output limit.*send shorter cells/);
    expect(ofTypes(lines(), "cell")).toEqual([]);

    // Cut off every time: after three continuations the turn ends as an error, with no final answer.
    const endless = await session.run("write an endless answer");
    expect(endless).toMatchObject({ status: "error" });
    expect(endless.status === "error" && endless.message).toMatch(/cut off .* 4 times in a row/);

    const journal = lines();
    expect(ofTypes(journal, "truncated").map((l) => [l.by, l.action])).toEqual([
      ["model", "continued"],
      ["model", "continued"],
      ["model", "continued"],
      ["model", "continued"],
      ["model", "continued"],
      ["model", "gave_up"],
    ]);
    const finals = ofTypes(journal, "final").map((l) => String(l.text));
    expect(finals.map((t) => t.length)).toEqual([4096 * 4 + 5, "short cells from now on".length]);
    expect(finals[1]).toBe("short cells from now on");
  });

  it("a reply with neither text nor a cell is asked again, never passed off as a final answer", async () => {
    const rig = await startRig("anthropic", {
      script: [
        { text: "" },
        { text: " \n" },
        { text: "the answer, at last" },
        { text: "" },
        { text: "" },
        { text: "" },
      ],
    });
    const { session, lines } = await open(rig);

    // Two empty replies: each time the model is told, and its third reply is the answer.
    expect(await session.run("answer me")).toEqual({
      status: "done",
      text: "the answer, at last",
      submitted: false,
    });
    const told = JSON.stringify(rig.model.requests[1]?.body);
    expect(told).toContain("Your last reply was empty: no text and no ipython call");

    // Empty every time: after two reminders the turn ends as an error, with no final answer.
    const silent = await session.run("answer me again");
    expect(silent).toMatchObject({ status: "error" });
    expect(silent.status === "error" && silent.message).toMatch(/neither text nor a cell 3 times in a row/);
    const journal = lines();
    expect(ofTypes(journal, "final").map((l) => l.text)).toEqual(["the answer, at last"]);
    expect(ofTypes(journal, "message").filter((l) => l.from === "relm")).toHaveLength(4);
    expect(rig.model.requests).toHaveLength(6);
  });
});
