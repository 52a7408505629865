// `relm run --json`: live events are redacted as journaled ones are, streamed pieces included.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/core/events.js";
import { RedactedEvents } from "../../src/host/redacted-events.js";

const SECRET = "gho_refresh-token-0123456789";

describe("RedactedEvents", () => {
  it("redacts a token streamed in pieces, and says what was held back before the agent's next event", () => {
    const written: AgentEvent[] = [];
    const events = new RedactedEvents((e) => written.push(e));
    events.use([SECRET]);
    const pieces = ["token: gho_re", "fresh-token-01", "23456789 ok gho"];
    for (const delta of pieces) events.sink({ type: "text_delta", turn: 1, delta });
    // A child's stream is its own, and its events do not end the root's stream.
    events.sink({ type: "cell_output_delta", callId: "c1", text: `child ${SECRET.slice(0, 6)}`, agent: "k" });
    events.sink({ type: "warning", message: `child warns ${SECRET}`, agent: "k" } as AgentEvent);
    const rootText = () =>
      written.flatMap((e) => (e.type === "text_delta" && !e.agent ? [e.delta] : [])).join("");
    expect(rootText()).toBe("token: [REDACTED] ok ");
    events.sink({ type: "text_reset", turn: 1 });
    expect(rootText()).toBe("token: [REDACTED] ok gho");
    expect(written.at(-1)).toEqual({ type: "text_reset", turn: 1 });
    expect(JSON.stringify(written)).not.toContain(SECRET);
    // The child's piece that began like the token came out before its next event.
    const childText = written.flatMap((e) => (e.type === "cell_output_delta" ? [e.text] : [])).join("");
    expect(childText).toBe("child gho_re");
    expect(written).toContainEqual({ type: "warning", message: "child warns [REDACTED]", agent: "k" });
  });

  it("at the end of the run says what every stream still holds", () => {
    const written: AgentEvent[] = [];
    const events = new RedactedEvents((e) => written.push(e));
    events.use([SECRET]);
    events.sink({ type: "reasoning_delta", turn: 2, delta: "maybe gho_" });
    expect(written).toEqual([{ type: "reasoning_delta", turn: 2, delta: "maybe " }]);
    events.end();
    expect(written.at(-1)).toEqual({ type: "reasoning_delta", turn: 2, delta: "gho_" });
  });
});
