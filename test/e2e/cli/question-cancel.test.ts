// Ctrl-C at a line question of the CLI (src/cli/question.ts): `relm login`'s endpoint, `relm attach`'s
// "reopen it?" in the plain view, `relm refine`'s "apply?", `relm trust`'s "trust it?" all cancel that question the same way, in a
// real terminal: one `relm: … cancelled` line, no stack trace, exit 130 (interrupted), nothing changed.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptContext, ScriptStep } from "../../../src/scripted/index.js";
import { runRelm } from "../../support/cli.js";
import {
  configLesson,
  edits,
  isRefine,
  PARSE_CONFIG_STEPS,
  sessionIds,
  snapshot,
} from "../../support/harness.js";
import { type Pty, usePtys } from "../../support/pty.js";
import { byTask } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const startPty = usePtys();

const WAIT = { timeoutMs: 60_000, where: "all" } as const;

/** Presses Ctrl-C at the question `asked` and checks the question ended as a cancellation does. */
async function cancelAt(pty: Pty, asked: string | RegExp, said: RegExp): Promise<void> {
  await pty.waitFor(asked, WAIT);
  await pty.press("ctrl-c");
  const exit = await pty.waitForExit(60_000);
  const text = pty.allText();
  expect(exit.exitCode, text).toBe(130);
  expect(text).toMatch(said);
  expect(text).not.toMatch(/\n\s+at |Error:|ERR_/);
}

describe("Ctrl-C at a line question", () => {
  it("relm login: cancelled, nothing saved", async () => {
    const rig = await startRig("openai", { script: [] });
    const before = snapshot(rig.home);
    // RELM_NO_TUI: the line prompts, as where the picker cannot be drawn.
    const pty = startPty({ args: ["login"], env: { ...rig.env, RELM_NO_TUI: "1" }, cwd: rig.cwd });
    await cancelAt(pty, "Endpoint", /^relm: login cancelled; nothing was saved$/m);
    expect(snapshot(rig.home)).toEqual(before);
  });

  it("relm attach (plain view): the session is not reopened", async () => {
    const rig = await startRig("openai", { script: [{ text: "done" }] });
    const run = await runRelm(["run", "say done"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const [id] = sessionIds(rig.home);
    const pty = startPty({
      args: ["attach", id as string],
      env: { ...rig.env, RELM_NO_TUI: "1" },
      cwd: rig.cwd,
    });
    await cancelAt(
      pty,
      "Reopen it to continue? [y/N]",
      /^relm: attach cancelled; the session was left as it was$/m,
    );
    const listed = await runRelm(["agents", "--json"], { env: rig.env });
    expect(JSON.parse(listed.stdout.trim()).status).toBe("done");
    expect(rig.model.requests).toHaveLength(1);
  });

  it("relm refine: nothing applied; an answer typed at the same question is still read", async () => {
    const main = byTask({ "ROOT: parse the config": PARSE_CONFIG_STEPS });
    const oneEdit = (ctx: ScriptContext): ScriptStep => edits([configLesson(ctx)]);
    const rig = await startRig("openai", {
      script: async (ctx: ScriptContext) => (isRefine(ctx) ? oneEdit(ctx) : main(ctx)),
    });
    const run = await runRelm(["run", "ROOT: parse the config"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const [id] = sessionIds(rig.home);
    const before = snapshot(rig.home, rig.cwd);
    const pty = startPty({
      args: ["refine", id as string, "--scope", "project"],
      env: rig.env,
      cwd: rig.cwd,
    });
    await cancelAt(
      pty,
      "Apply 1 edit(s) to the project scope? [y/N]",
      /^relm: refine cancelled; nothing was applied$/m,
    );
    expect(snapshot(rig.home, rig.cwd)).toEqual(before);

    const again = startPty({
      args: ["refine", id as string, "--scope", "project"],
      env: rig.env,
      cwd: rig.cwd,
    });
    await again.waitFor("[y/N]", WAIT);
    await again.type("y\r");
    expect((await again.waitForExit(60_000)).exitCode, again.allText()).toBe(0);
    expect(again.allText()).toMatch(/applied as revision r[0-9a-z]{7} in the project scope/);
  });

  it("relm trust: nothing approved, at Ctrl-C and at the end of input alike", async () => {
    // The question read stdin by hand: Ctrl-C killed relm with no word, Ctrl-D left it at exit 0.
    const rig = await startRig("openai", { script: [] });
    writeFileSync(join(rig.cwd, ".mcp.json"), JSON.stringify({ mcpServers: { s: { command: "echo" } } }));
    const before = snapshot(rig.home);
    const pty = startPty({ args: ["trust"], env: rig.env, cwd: rig.cwd });
    await cancelAt(pty, "[y/N]", /^relm: trust cancelled; nothing was approved$/m);
    const eof = startPty({ args: ["trust"], env: rig.env, cwd: rig.cwd });
    await eof.waitFor("[y/N]", WAIT);
    await eof.press("ctrl-d");
    expect((await eof.waitForExit(60_000)).exitCode, eof.allText()).toBe(130);
    expect(eof.allText()).toMatch(/^relm: trust cancelled; nothing was approved$/m);
    expect(snapshot(rig.home)).toEqual(before);

    const yes = startPty({ args: ["trust"], env: rig.env, cwd: rig.cwd });
    await yes.waitFor("Trust it as it is now? [y/N]", WAIT);
    await yes.type("y\r");
    expect((await yes.waitForExit(60_000)).exitCode, yes.allText()).toBe(0);
    expect(yes.allText()).toMatch(/Trusted 1 item\(s\)/);
  });
});
