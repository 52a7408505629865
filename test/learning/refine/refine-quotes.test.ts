// Quotes as evidence (issue 10, item 8): an edit must quote the words of the events it cites.
import { describe, expect, it } from "vitest";
import { checkQuotes } from "../../../src/learning/refine/refine-quotes.js";
import { collectTrajectory } from "../../../src/learning/refine/refine-trajectory.js";
import type { JournalEvent } from "../../../src/session/types.js";

const t = "2026-01-01T00:00:00.000Z";
const events = [
  { n: 1, t, type: "user", text: "Deploy the app to the staging server and check its health endpoint." },
  {
    n: 2,
    t,
    type: "cell",
    turn: 1,
    callId: "c1",
    code: "import requests\nr = requests.get(URL + '/health')",
  },
  {
    n: 3,
    t,
    type: "cell_output",
    turn: 1,
    callId: "c1",
    executionCount: 1,
    status: "error",
    output: "ConnectionError: staging.example.net:443\n  refused",
    error: { name: "ConnectionError", value: "refused", traceback: [] },
    images: [],
    truncated: false,
    chars: 40,
    durationMs: 5,
  },
] as unknown as JournalEvent[];
const trajectory = collectTrajectory(events, 0);

describe("checkQuotes", () => {
  it("accepts words found in a cited event, whitespace aside, one quote or several", () => {
    expect(checkQuotes("check its health endpoint", [1], trajectory)).toEqual({
      quotes: ["check its health endpoint"],
    });
    // Printed over two indented lines; quoted on one.
    expect(checkQuotes(["staging.example.net:443 refused", "requests.get(URL"], [2, 3], trajectory)).toEqual({
      quotes: ["staging.example.net:443 refused", "requests.get(URL"],
    });
  });

  it("rejects a claim the cited event does not say, words of an event it does not cite, and no quote", () => {
    expect(checkQuotes("the deploy server is in Frankfurt", [1], trajectory)).toEqual({
      reason: 'quote "the deploy server is in Frankfurt" is not found in the cited event 1',
    });
    // True words, but of event 3, which this edit does not cite.
    expect(checkQuotes("ConnectionError", [1, 2], trajectory)).toMatchObject({
      reason: expect.stringContaining("not found in the cited events 1, 2"),
    });
    // Case matters: verbatim means verbatim.
    expect(checkQuotes("deploy the app", [1], trajectory)).toHaveProperty("reason");
    for (const missing of [undefined, "", [], [42]]) {
      expect(checkQuotes(missing, [1], trajectory)).toMatchObject({
        reason: expect.stringMatching(/^quotes nothing/),
      });
    }
    expect(checkQuotes("the app", [1], trajectory)).toMatchObject({
      reason: expect.stringContaining("too short"),
    });
  });
});
