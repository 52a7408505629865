// An approval answered anywhere (this terminal's dialog, relm web, an editor, the policy) leaves a line
// in the terminal UI's transcript saying what was asked and how it was answered, as the web page does.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/core/events.js";
import { makeTheme } from "../../../src/tui/theme.js";
import { Transcript } from "../../../src/tui/transcript/transcript.js";

const t = "2026-12-05T10:00:00.000Z";

function shown(events: object[]): string {
  const transcript = new Transcript(makeTheme({ NO_COLOR: "1" }), {
    expanded: false,
    now: () => Date.parse(t),
  });
  for (const e of events) transcript.apply(e as AgentEvent);
  return transcript
    .render(100)
    .map((l) => l.trimEnd())
    .join("\n");
}

const request = (id: string, kind: string, subject: string) => ({
  n: 1,
  t,
  type: "approval_request",
  id,
  kind,
  reason: "to fetch the data",
  subject,
  requester: "root",
});

describe("terminal UI approval lines", () => {
  it("says what was asked and who answered how", () => {
    const text = shown([
      request("r1", "net", "example.com:443"),
      { n: 2, t, type: "approval_answer", id: "r1", allow: true, scope: "once", by: "web" },
      request("r2", "run", "rm -rf build"),
      { n: 4, t, type: "approval_answer", id: "r2", allow: false, scope: "once", by: "ui", note: "not now" },
      request("r3", "write", "/etc/hosts"),
      { n: 6, t, type: "approval_answer", id: "r3", allow: true, scope: "session", by: "policy" },
      request("r4", "mode", "full"),
      { n: 8, t, type: "approval_answer", id: "r4", allow: false, scope: "once", by: "ui", withdrawn: true },
    ]);
    expect(text).toContain("✓ network example.com:443: allowed once by relm web");
    expect(text).toContain("✗ command rm -rf build: denied by the terminal UI: not now");
    expect(text).toContain("✓ write /etc/hosts: allowed for this session by the policy");
    expect(text).toContain("■ mode full: withdrawn (nobody answered before the cell was interrupted)");
  });

  it("an answer to a request it never saw (attached later) still says how it was answered", () => {
    const text = shown([
      { n: 2, t, type: "approval_answer", id: "r9", allow: true, scope: "project", by: "acp" },
    ]);
    expect(text).toContain("✓ request r9: allowed for this project by the editor");
  });
});
