// `relm shutdown` with a host that will not go: one that removed its socket (nothing answers on it) and
// does not run (stopped with SIGSTOP), while its process lives and holds the session's lock. Shutdown
// escalates (SIGTERM, then SIGKILL) and says once, truthfully, what it did. A real detached host.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processRuns } from "../../../src/config/process.js";
import { socketPath } from "../../../src/host/paths.js";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

describe("relm shutdown with a host that will not exit", () => {
  it("kills it after asking, reports it once as stopped, and exits 0", async () => {
    const rig = await startRig("openai", { script: [{ text: "done here" }] });
    const started = await runRelm(["run", "--detach", "say done"], { env: rig.env, cwd: rig.cwd });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    const state = JSON.parse(readFileSync(join(onlyJournal(rig.home).dir, "state.json"), "utf8")) as {
      pid: number;
      pidStarted: number;
    };
    // Its socket gone and the process frozen: it can neither be asked nor act on SIGTERM.
    rmSync(socketPath(rig.home, id));
    process.kill(state.pid, "SIGSTOP");

    const result = await runRelm(["shutdown"], { env: rig.env, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(processRuns(state.pid, state.pidStarted)).toBe(false);
    expect(result.stdout).toContain("stopped 1 of 1 live sessions");
    // Said once, as what happened: no "not running", no rounds of retrying it.
    const lines = result.stderr.trim().split("\n");
    expect(
      lines.filter((l) => l.includes(id)),
      result.stderr,
    ).toHaveLength(1);
    expect(result.stderr).toMatch(new RegExp(`killed ${id} \\(pid ${state.pid}\\): .*SIGTERM`));
    expect(result.stderr).not.toContain("is not running");
    expect(result.stderr).not.toContain("kept starting");
    const agents = await runRelm(["agents", "--json"], { env: rig.env });
    expect(agents.stdout).toContain(`"id":"${id}"`);
    expect(JSON.parse(agents.stdout.trim().split("\n")[0] as string).live).toBe(false);
  });
});
