// Messages to a hosted session (issue 10, item 8): one that starts a turn is read by inbox() in that
// turn's cells like one delivered during a turn, and `send` says truthfully which of the two happened.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hosted, journal } from "../support/hosted.js";
import { byTask, echoLastCell } from "../support/router.js";
import { useRigs } from "../support/scripted.js";
import { until } from "../support/wait.js";

const startRig = useRigs();

const PRINT_INBOX = "print([(m['from'], m['text']) for m in inbox()])";
/** Reads inbox() until a message with PING in it has come, then prints everything read. */
const WAIT_FOR_PING = [
  "import time",
  "got = []",
  "for _ in range(1200):",
  "    got += inbox()",
  "    if any('PING' in m['text'] for m in got):",
  "        break",
  "    time.sleep(0.05)",
  "print([(m['from'], m['text']) for m in got])",
].join("\n");

describe("send and inbox()", () => {
  it("a message that starts a turn is in inbox(); send answers now, or at the next turn boundary", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "INBOX:": [{ code: PRINT_INBOX }, echoLastCell, { code: WAIT_FOR_PING }, echoLastCell],
      }),
    });
    const s = await hosted(rig);
    const outputs = () =>
      journal(join(s.dir, "journal.jsonl"))
        .filter((l) => l.type === "cell_output")
        .map((l) => String(l.output));
    const idle = () => until(async () => ((await s.info()).busy ? undefined : true), 30_000);

    expect(await s.client.call("send", { text: "INBOX: first" })).toEqual({ delivered: "now" });
    await idle();
    expect(outputs()[0]).toContain("[('user', 'INBOX: first')]");

    // An idle session again: this message starts the second turn, whose cell then waits for another.
    expect(await s.client.call("send", { text: "INBOX: second" })).toEqual({ delivered: "now" });
    await until(() =>
      s.events.some((e) => e.type === "cell" && e.code.includes("PING")) ? true : undefined,
    );
    expect(await s.client.call("send", { text: "PING-7" })).toEqual({
      delivered: "at the next turn boundary",
    });
    await idle();
    expect(outputs()[1]).toContain("[('user', 'INBOX: second'), ('user', 'PING-7')]");
    // The inbox does not hand a message out twice.
    expect(outputs()[1]).not.toContain("INBOX: first");
    await s.close();
  });
});
