// Cost is worded one way in every view (status line, /cost, the sub-agent panel, the turn footer):
// "unpriced" when the model has no prices (from the session's start, not "$0" until the first answer),
// "$0.00" before anything is spent when it has prices, and the figure after; a sub-agent shows no cost
// until its first answer says which.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptStep } from "../../../src/scripted/index.js";
import type { Pty } from "../../support/pty.js";
import { byTask } from "../../support/router.js";
import { useTui } from "../../support/tui.js";
import { until } from "../../support/wait.js";

const { startRig, open } = useTui();

/** A model answer held until `path` exists (the test creates it). */
const heldUntil = (path: () => string, step: ScriptStep) => async () => {
  await until(() => (existsSync(path()) ? true : undefined), 60_000);
  return step;
};

/** The status line's first row (the one with the model's name). */
const statusRow = (ui: Pty) => ui.screen().find((row) => row.includes("via openai")) ?? "";

/** /cost's dialog text, closed again. */
async function costDialog(ui: Pty): Promise<string> {
  await ui.type("/cost");
  await ui.press("enter");
  const text = await ui.waitFor("Spend");
  await ui.press("escape");
  await ui.waitFor((s) => !s.includes("╭─ Spend"));
  return text;
}

describe("terminal UI cost wording", () => {
  it("an unpriced model: 'unpriced' from the start in the status line, the footer and /cost; a child's cost shown once known", async () => {
    let dir = "";
    const rig = await startRig("openai", {
      script: byTask({
        "fan out": [
          heldUntil(() => join(dir, "root-go"), {
            code: "r = rlm.map('count the item', ['solo'])\nprint(r)",
          }),
          { text: "counted" },
        ],
        "count the item": [heldUntil(() => join(dir, "child-go"), { code: "submit('ok')" })],
      }),
    });
    dir = rig.cwd;
    const ui = open(rig, [], { cols: 140, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("fan out please");
    await ui.press("enter");
    // The first model call is still unanswered: nothing spent, and the status line already says unpriced.
    await ui.waitFor((s) => /ctx \d+%/.test(s) && s.includes("thinking"));
    expect(statusRow(ui)).toContain("unpriced");
    expect(statusRow(ui)).not.toMatch(/\$0/);
    writeFileSync(join(dir, "root-go"), "");
    // The child's first call is unanswered: its row has its tokens and no cost yet.
    const panel = await ui.waitFor(/solo (starting|thinking)/);
    const childRow = panel.split("\n").find((row) => /solo (starting|thinking)/.test(row)) ?? "";
    expect(childRow).toMatch(/0 tok\b/);
    expect(childRow).not.toMatch(/\$0|unpriced/);
    writeFileSync(join(dir, "child-go"), "");
    await ui.waitFor(/✓ \d+ model calls? · [\d,]+ tokens · [\d.]+ m?s · unpriced/);
    expect(statusRow(ui)).toContain("unpriced");
    expect(await costDialog(ui)).toMatch(/cost +unpriced \(add the model's prices to config\.json/);
    expect(ui.allText()).not.toMatch(/\$0\b/);
  });

  it("a priced model: '$0.00' before the first answer, then the figure, in the status line, the footer and /cost", async () => {
    let dir = "";
    const rig = await startRig(
      "openai",
      { script: [heldUntil(() => join(dir, "go"), { text: "priced answer" })] },
      { config: { prices: { scripted: { input: 3, output: 15 } } } },
    );
    dir = rig.cwd;
    const ui = open(rig, [], { cols: 140, rows: 40 });
    await ui.waitFor("new session");
    await ui.type("say something");
    await ui.press("enter");
    await ui.waitFor((s) => /ctx \d+%/.test(s) && s.includes("thinking"));
    expect(statusRow(ui)).toContain("│ $0.00 │");
    writeFileSync(join(dir, "go"), "");
    await ui.waitFor("priced answer");
    const footer = await ui.waitFor(/✓ 1 model call · [\d,]+ tokens · [\d.]+ m?s · \$0\.\d{4}/);
    const spent = /· (\$0\.\d{4})/.exec(footer)?.[1] as string;
    expect(Number.parseFloat(spent.slice(1))).toBeGreaterThan(0);
    await ui.waitFor(() => statusRow(ui).includes(`│ ${spent} │`));
    expect(await costDialog(ui)).toMatch(new RegExp(`cost +\\${spent}`));
    expect(ui.allText()).not.toContain("unpriced");
  });
});
