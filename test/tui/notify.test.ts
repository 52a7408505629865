// The terminal's notification (docs/hooks.md, "Notifications"): when the work the UI started finishes,
// the raw bytes relm writes to the pty carry OSC 9 and OSC 777 with the notification's text, and a bell.
import { describe, expect, it } from "vitest";
import { notificationBytes } from "../../src/tui/notify.js";
import { untilJournal, useTui } from "../support/tui.js";
import { until } from "../support/wait.js";

const { startRig, open } = useTui();

describe("terminal notifications", () => {
  it("a finished turn writes OSC 9, OSC 777 and a bell to the terminal", async () => {
    const rig = await startRig("openai", { script: [{ code: "print(6 * 7)" }, { text: "it is 42" }] });
    const ui = open(rig, [], { cols: 120 });
    await ui.waitFor("new session");
    await ui.type("multiply");
    await ui.press("enter");
    const lines = await untilJournal(rig.home, (l) => l.some((e) => e.type === "notification"));
    const note = lines.find((e) => e.type === "notification") as unknown as { kind: string; text: string };
    expect(note.kind).toBe("done");
    expect(note.text).toContain("finished: it is 42");
    await until(() => (ui.output().includes("\u001b]9;relm: ") ? true : undefined));
    const raw = ui.output();
    expect(raw).toContain(`\u001b]9;relm: ${note.text}\u0007`);
    expect(raw).toContain(`\u001b]777;notify;relm;${note.text}\u0007\u0007`);
    await ui.press("escape");
  });

  it("the text cannot end the sequence early or carry its own escapes", () => {
    const bytes = notificationBytes("done\u0007\u001b]0;pwned\u001b\\ ok");
    expect(bytes).toBe(
      "\u001b]9;relm: done  ]0;pwned \\ ok\u0007\u001b]777;notify;relm;done  ]0;pwned \\ ok\u0007\u0007",
    );
  });
});
