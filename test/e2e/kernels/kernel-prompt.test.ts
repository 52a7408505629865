// What the system prompt says about a kernel elsewhere (cmd:, ssh, a container, Slurm) comes from the
// kernel itself: before an agent's first request relm waits for it to start and report its Python
// (src/agent/kernel-api/kernel-facts.ts). The wait ends with the time budget, and a kernel that cannot start
// leaves the prompt saying its Python is not known (the first cell then says why it failed).
// The real cases (a container and an ssh kernel without IPython) are in launchers-*.test.ts.

import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

const ofType = (lines: JournalLine[], type: string) => lines.filter((l) => l.type === type);

describe("the prompt of an agent whose kernel runs elsewhere", () => {
  it("says what the kernel reported once it started: its Python, with IPython", async () => {
    const rig = await startRig("openai", { script: [{ code: "!echo shell-ok" }, echoLastCell] });
    const result = await runRelm(["run", "--kernel", "cmd:env", "hi"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("shell-ok");
    const { lines } = onlyJournal(rig.home);
    // Journaled twice: as built, and as renewed with the kernel's report before the first request.
    const prompts = ofType(lines, "system_prompt").map((l) => String(l.text));
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toContain("- Python: not known yet (the kernel had not started)");
    expect(prompts[1]).toMatch(/- Python 3\.\d+\.\d+ with IPython \S+: IPython syntax works/);
    const body = rig.model.requests[0]?.body as { messages: { role: string; content: string }[] };
    expect(body.messages[0]?.content).toBe(prompts[1]);
    // The renewal comes before the first request, and no request was ever sent with the first one.
    const renewed = lines.indexOf(ofType(lines, "system_prompt")[1] as JournalLine);
    expect(renewed).toBeLessThan(lines.indexOf(ofType(lines, "model_request")[0] as JournalLine));
    expect(String(ofType(lines, "kernel")[0]?.detail)).toMatch(/python 3\.\d+\.\d+, IPython \S+ via cmd:env/);
  });

  it("a kernel that cannot start: the prompt says its Python is not known, the first cell says why", async () => {
    const rig = await startRig("openai", { script: [{ code: "print(1)" }, echoLastCell] });
    const result = await runRelm(["run", "--kernel", "cmd:sh -c 'echo no python here >&2; exit 9'", "hi"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(rig.model.requests[0]?.rawBody).toContain("- Python: not known yet (the kernel had not started)");
    expect(rig.model.requests[0]?.rawBody).not.toMatch(/with IPython \d/);
    expect(result.stdout + result.stderr).toContain("no python here");
  });

  it("a cell whose kernel could not start never ran: resumed, the note does not say it may have run", async () => {
    const rig = await startRig("openai", { script: [{ code: "print(1)" }, echoLastCell, echoLastCell] });
    const first = await runRelm(["run", "--kernel", "cmd:sh -c 'exit 9'", "hi"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    const id = String(onlyJournal(rig.home).lines[0]?.id);
    const again = await runRelm(["run", "--resume", id, "--kernel", "local", "go on"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(again.code, first.stderr + again.stderr).toBe(0);
    const resumed = ofType(onlyJournal(rig.home).lines, "resumed")[0];
    expect(JSON.stringify(resumed?.uncertain ?? [])).not.toMatch(/was running|may have run/);
    expect(rig.model.requests.at(-1)?.rawBody).not.toMatch(/may have run partly/);
  });

  it("the wait for a kernel that takes long to start ends with --max-time: exit 3, no request", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    // A kernel that would answer after 10 minutes; the time budget is 2 s. relm exits without waiting for
    // it (runRelm's 90 s would fail the test otherwise): a kernel still starting is stopped at the close.
    const result = await runRelm(
      ["run", "--max-time", "2s", "--kernel", `cmd:sh -c 'sleep 600; exec "$@"' sh`, "slow kernel"],
      { env: rig.env, cwd: rig.cwd, timeoutMs: 90_000 },
    );
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/--max-time/);
    expect(rig.model.requests).toHaveLength(0);
    const { lines } = onlyJournal(rig.home);
    const stop = ofType(lines, "budget_stop")[0];
    expect(stop?.budget).toBe("max-time");
    // Stopped at the limit (with a margin for a loaded machine), not when the kernel came up.
    const created = Date.parse(lines[0]?.created as string);
    expect(Date.parse(stop?.t as string) - created).toBeLessThan(2_000 + 8_000);
  }, 120_000);
});
