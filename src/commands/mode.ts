// /mode [NAME]: the session's permission mode (docs/sandbox.md), in every front end. Before the first
// message it is kept and the session starts in it; afterwards the host switches it (the kernel restarts
// under the new mode, its variables restored from the snapshot).
import { describeMode, modeNamed, PERMISSION_MODES, type PermissionMode } from "../config/permission-mode.js";
import type { ModeResult } from "../host/protocol.js";
import { type CommandContext, defineCommand, onHost } from "./types.js";

const USAGE = "/mode [plan|workspace|full]";

/** What a mode answer says, as lines with their tone. */
export function modeLines(result: ModeResult): { text: string; tone: "accent" | "warn" | "dim" }[] {
  const lines: { text: string; tone: "accent" | "warn" | "dim" }[] = [
    { text: `⊡ mode: ${result.mode} — ${describeMode(result.mode)}`, tone: "accent" },
  ];
  if (result.warning) lines.push({ text: `⚠ ${result.warning}`, tone: "warn" });
  if (result.changed && (result.restored.length > 0 || result.notRestored.length > 0)) {
    const back = result.restored.length > 0 ? `restored ${result.restored.join(", ")}` : "";
    lines.push({ text: `kernel restarted under it${back ? `; ${back}` : ""}`, tone: "dim" });
  }
  if (result.notRestored.length > 0)
    lines.push({
      text: `not restored: ${result.notRestored.map((v) => `${v.name} (${v.reason})`).join(", ")}`,
      tone: "warn",
    });
  return lines;
}

/** Switches (or, with no mode, tells) the mode: kept for the start, or sent to the live host. */
async function applyMode(ctx: CommandContext, mode: PermissionMode | undefined): Promise<void> {
  if (ctx.pending) {
    if (mode) ctx.pending.mode = mode;
    const kept = ctx.pending.mode;
    ctx.say(
      kept
        ? `⊡ mode: ${kept} — ${describeMode(kept)} (the session starts in it)`
        : "mode: as configured (/mode NAME chooses one: plan, workspace or full)",
      "accent",
    );
    return;
  }
  const result = await onHost(ctx, (call) => call("mode", mode ? { mode } : {}));
  if (!result) return;
  // A switch is shown by its journal event's lines where front ends show those (modeLines too).
  if (result.changed && ctx.showsEvents) return;
  for (const line of modeLines(result)) ctx.say(line.text, line.tone);
}

export const modeCommand = defineCommand<{ mode?: PermissionMode }>({
  name: "mode",
  args: "[plan|workspace|full]",
  description: "the permission mode: plan (read-only), workspace (sandboxed) or full (also shift+tab)",
  parse: ([word]) => {
    if (word === undefined) return { args: {} };
    const mode = modeNamed(word);
    return mode ? { args: { mode } } : { usage: USAGE };
  },
  act: async (ctx, { mode }) => {
    let chosen = mode;
    if (!chosen && ctx.pick) {
      const picked = await ctx.pick(
        "Permission mode",
        PERMISSION_MODES.map((m) => ({ value: m, label: m, description: describeMode(m) })),
      );
      if (picked === undefined) return; // the person backed out of the list
      chosen = modeNamed(picked);
    }
    await applyMode(ctx, chosen);
  },
});
