// shift+tab: the next permission mode (plan → workspace → full), through /mode as if typed — kept for
// the session's start, or switched by its host (the kernel restarts, its variables restored). Where the
// sandbox does not work there is nothing to cycle to, and the UI says why.
import type { SlashCommand } from "../commands/types.js";
import { nextMode, type PermissionMode } from "../config/permission-mode.js";
import type { SandboxProbe } from "../kernel/sandbox/index.js";
import type { AppControl } from "./app-api.js";
import { runSlash } from "./slash.js";

export async function cycleMode(
  app: AppControl & { readonly mode: PermissionMode },
  commands: readonly SlashCommand[],
  probe: SandboxProbe,
): Promise<void> {
  if (!probe.ok) {
    app.note(app.theme.warn(`⚠ only full access here: ${probe.detail}; ${probe.fix ?? "see relm doctor"}`));
    return;
  }
  if (app.busy) {
    app.note(app.theme.dim("the agent is working: change the mode when the turn has ended"));
    return;
  }
  await runSlash(app, commands, `/mode ${nextMode(app.mode)}`);
  app.tui.requestRender();
}
