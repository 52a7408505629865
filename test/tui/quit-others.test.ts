// Quitting in one terminal while another follows the same session leaves it running for the other, and
// says which client that is; quitting the last one stops it as before.
import { describe, expect, it } from "vitest";
import { runRelm } from "../support/cli.js";
import { sessionIds, useTui } from "../support/tui.js";
import { until } from "../support/wait.js";

const { startRig, open } = useTui();

async function liveOf(rig: { env: NodeJS.ProcessEnv; cwd: string }, id: string): Promise<boolean> {
  const r = await runRelm(["agents", "--json"], { env: rig.env, cwd: rig.cwd });
  const row = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: string; live: boolean })
    .find((s) => s.id === id);
  return row?.live === true;
}

describe("terminal UI quitting with other clients", () => {
  it("ctrl+c twice leaves the session running when another terminal follows it, and names that terminal", async () => {
    const rig = await startRig("openai", { script: [{ text: "hello there" }, { text: "still here" }] });
    const first = open(rig);
    await first.waitFor("new session");
    await first.type("hi");
    await first.press("enter");
    await first.waitFor(/✓ \d+ model calls? ·/);
    const [id] = sessionIds(rig.home);
    const second = open(rig, ["attach", id as string]);
    await second.waitFor("hello there", { where: "all" });
    await first.press("ctrl-c");
    await first.waitFor("press ctrl+c again to quit");
    await first.press("ctrl-c");
    expect((await first.waitForExit()).exitCode).toBe(0);
    const said = first.allText();
    expect(said).toContain(`session ${id} keeps running: another client follows it:`);
    expect(said).toMatch(new RegExp(`relm attach ${id} \\(pid ${second.pid}\\b`));
    expect(await liveOf(rig, id as string)).toBe(true);
    // The other terminal goes on with the session.
    await second.type("are you there?");
    await second.press("enter");
    await second.waitFor("still here");
    // The last one to quit stops it.
    await second.press("ctrl-d");
    expect((await second.waitForExit()).exitCode).toBe(0);
    expect(second.allText()).toContain(`session ${id} saved`);
    await until(async () => ((await liveOf(rig, id as string)) ? undefined : true));
  });
});
