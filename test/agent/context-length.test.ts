// A prompt the server refuses as too long for the model's context window (src/agent/core/loop.ts
// compactForLength): the conversation is compacted and the request sent again, once, journaled and shown;
// when that cannot help, the turn ends with an error that says what to do. The scripted model over real
// HTTP answers with each API's own refusal (its `tooLong` step) and a real kernel runs the cells.
import { describe, expect, it } from "vitest";
import { COMPACTION_NOTICE } from "../../src/agent/compaction/messages.js";
import type { ScriptItem } from "../../src/scripted/index.js";
import { ofTypes, useSessions } from "../support/in-process.js";
import { useRigs } from "../support/scripted.js";

const startRig = useRigs();
const open = useSessions();

const SUMMARY = "## Goal\nCount the rows.\n\n## Progress so far\nThe table has 4000 rows (ROWS-5b1e).";
/** A first turn whose cell prints a long output: something for a compaction to summarise. */
const FIRST_TURN: ScriptItem[] = [{ code: "print('row ' * 1500)" }, { text: "4000 rows" }];
/** A summary request is the one without tools. */
const isSummary = (body: unknown) => (body as { tools?: unknown }).tools === undefined;

describe("a prompt too long for the model's context window", () => {
  for (const format of ["openai", "anthropic"] as const) {
    it(`is compacted and sent again once, journaled and shown (${format})`, async () => {
      const rig = await startRig(format, {
        script: [...FIRST_TURN, { tooLong: true }, { text: SUMMARY }, { text: "still 4000 rows" }],
      });
      const { session, lines, events } = await open(rig);
      expect(await session.run("count the rows")).toMatchObject({ status: "done" });
      const before = lines().length;

      expect(await session.run("and again?")).toEqual({
        status: "done",
        text: "still 4000 rows",
        submitted: false,
      });

      // Refused, said so, compacted, sent again: each on disk before the next step.
      const turn = lines().slice(before);
      const steps = ofTypes(turn, "model_request", "warning", "compaction", "model_response", "final");
      expect(steps.map((l) => l.type)).toEqual([
        "model_request",
        "warning",
        "compaction",
        "model_request",
        "model_response",
        "final",
      ]);
      expect(String(steps[1]?.message)).toMatch(
        /the prompt is too long for the context window of model "scripted" \(HTTP 400\): .*; compacting the conversation and sending the request again/,
      );
      expect(ofTypes(turn, "model_error")).toEqual([]);
      // The person saw it as it happened.
      expect(events.some((e) => e.type === "warning" && /too long/.test(e.message))).toBe(true);

      // The request sent again carries the summary instead of the long output.
      const [refused, summary, retried] = rig.model.requests.slice(2);
      expect(refused?.rawBody).toContain("row row row");
      expect(isSummary(summary?.body)).toBe(true);
      expect(retried?.rawBody).toContain(COMPACTION_NOTICE.slice(0, 40));
      expect(retried?.rawBody).toContain("ROWS-5b1e");
      expect(retried?.rawBody).not.toContain("row row row");
      expect(rig.model.requests).toHaveLength(5);
    });
  }

  it("refused again after compacting: the turn ends with what to do, with no second compaction", async () => {
    const rig = await startRig("openai", {
      script: [...FIRST_TURN, { tooLong: true }, { text: SUMMARY }, { tooLong: true }, { text: "back" }],
    });
    const { session, lines } = await open(rig);
    await session.run("count the rows");

    const outcome = await session.run("and again?");
    expect(outcome).toMatchObject({ status: "error", error: { kind: "context_length", status: 400 } });
    const message = outcome.status === "error" ? outcome.message : "";
    expect(message).toMatch(/maximum context length is \d+ tokens/);
    expect(message).toMatch(
      /still too long after the conversation was compacted; set the model's real context window in config\.json's contextWindows \(relm takes it to be \d+ tokens\)/,
    );
    const journal = lines();
    expect(ofTypes(journal, "compaction")).toHaveLength(1);
    expect(ofTypes(journal, "model_error").map((l) => [l.kind, l.message])).toEqual([
      ["context_length", message],
    ]);
    expect(rig.model.requests.filter((r) => isSummary(r.body))).toHaveLength(1);
    expect(rig.model.requests).toHaveLength(5);

    // The session goes on.
    expect(await session.run("hello")).toMatchObject({ status: "done", text: "back" });
  });

  it("with nothing worth compacting: the turn ends at once, naming why compacting could not help", async () => {
    const rig = await startRig("anthropic", { script: [{ tooLong: true }] });
    const { session, lines } = await open(rig);

    const outcome = await session.run("x".repeat(2000));
    expect(outcome).toMatchObject({ status: "error", error: { kind: "context_length" } });
    const message = outcome.status === "error" ? outcome.message : "";
    expect(message).toMatch(/prompt is too long: \d+ tokens > \d+ maximum/);
    expect(message).toMatch(
      /compacting the conversation did not help \(not compacted: the conversation is short/,
    );
    expect(message).toMatch(/contextWindows/);
    expect(ofTypes(lines(), "warning", "compaction", "model_error").map((l) => l.type)).toEqual([
      "warning",
      "model_error",
    ]);
    expect(rig.model.requests).toHaveLength(1);
  });
});
