import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

describe("the kernel under stress, end to end", () => {
  it("caps a 5 MB output for the model and keeps the full text in _out", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "print('HEAD-MARK' + 'x' * 5_000_000 + 'TAIL-MARK')" },
        (ctx) => {
          const n = /_out\[(\d+)\]/.exec(ctx.lastToolResult ?? "")?.[1] ?? "missing";
          return { code: `print('full length', len(_out[${n}]))` };
        },
        { text: "ok" },
      ],
    });
    const result = await runRelm(["run", "big output"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(0);
    const second = rig.model.requests[1]?.rawBody ?? "";
    expect(second.length).toBeLessThan(40_000);
    expect(second).toContain("HEAD-MARK");
    expect(second).toContain("TAIL-MARK");
    // print adds a newline: 5 000 000 x's plus both markers plus "\n".
    expect(rig.model.requests[2]?.rawBody).toContain(`full length ${5_000_000 + 18 + 1}`);
    const { lines } = onlyJournal(rig.home);
    const out = lines.find((l) => l.type === "cell_output");
    expect(out?.truncated).toBe(true);
    expect(out?.fullOutputFile).toMatch(/^outputs\//);
  });

  it("interrupts `while True: pass` at --cell-timeout and carries on", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "y = 5\nwhile True:\n    pass" }, { code: "print('y is', y)" }, { text: "recovered" }],
    });
    const result = await runRelm(["run", "--cell-timeout", "2", "loop forever"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("recovered");
    const afterTimeout = rig.model.requests[1]?.rawBody ?? "";
    expect(afterTimeout).toMatch(/KeyboardInterrupt|interrupted/);
    expect(rig.model.requests[2]?.rawBody).toContain("y is 5");
    const { lines } = onlyJournal(rig.home);
    expect(lines.find((l) => l.type === "cell_output")?.status).toBe("timeout");
  });

  it("restarts a crashed kernel, tells the model, and finishes", async () => {
    const rig = await startRig("anthropic", {
      script: [
        { code: "import os\nos._exit(1)" },
        (ctx) => ({ code: `print('still here')  # told: ${/restarted/.test(ctx.lastToolResult ?? "")}` }),
        { text: "finished after the crash" },
      ],
    });
    const result = await runRelm(["run", "crash the kernel"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("finished after the crash");
    expect(rig.model.requests[1]?.rawBody).toMatch(/restarted/);
    expect(rig.model.requests[2]?.rawBody).toContain("still here");
    const { lines } = onlyJournal(rig.home);
    expect(lines.find((l) => l.type === "cell_output")?.status).toBe("crashed");
    expect(lines.some((l) => l.type === "kernel" && l.event === "restarted")).toBe(true);
  });
});
