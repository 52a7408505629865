// Slash commands in the terminal UI: the palette's entries come from the one command table
// (src/commands/), and the table's commands run here with the UI's context — replies as transcript
// notes, long texts and questions as dialogs, the model list and checkpoints as pickers. The commands
// about the UI's own screen and sessions are its own (slash-session.ts).
import type { SlashCommand as PaletteEntry } from "@mariozechner/pi-tui";
import { commandFolders, loadCustomCommands, withCustom } from "../commands/custom.js";
import { runCommandLine } from "../commands/run.js";
import { commandsFor } from "../commands/table.js";
import type { CommandContext, SlashCommand } from "../commands/types.js";
import type { HostCall } from "../host/protocol.js";
import type { AppControl } from "./app-api.js";
import { confirm, pickFrom, showText } from "./dialogs/dialogs.js";
import { pickModel, uiOwnCommands } from "./slash-session.js";
import { openInPager } from "./transcript/output-pager.js";

/** The commands the UI offers, in the table's order, then the custom ones of `cwd`'s project and `home`. */
export function uiCommands(cwd: string, home: string): SlashCommand[] {
  return withCustom(commandsFor("ui"), loadCustomCommands(commandFolders(cwd, home)));
}

/** The palette's entries, for the editor's completion. */
export function paletteEntries(commands: readonly SlashCommand[]): PaletteEntry[] {
  return commands.map((c) => ({ name: c.name, description: c.description, argumentHint: c.args }));
}

/** The table's commands' context in the UI. */
function uiContext(api: AppControl): CommandContext {
  // The status line follows what a command changed (goal, autonomy, model).
  const call: HostCall = (method, ...params) =>
    api.link.call(method, ...params).finally(() => api.refreshInfo());
  return {
    call,
    live: () => api.ensureLive(),
    pending: api.link.id ? undefined : api.pending,
    busy: api.busy,
    showsEvents: true,
    say: (text, tone = "plain") => api.note(tone === "plain" ? text : api.theme[tone](text)),
    show: (title, lines) => showText(api.dialogs, title, () => lines),
    confirm: (question) => confirm(api.dialogs, "Apply?", question),
    pick: (title, items, text) =>
      pickFrom(api.dialogs, { title, items, filterable: false, ...(text ? { text } : {}) }),
    page: async (file) => openInPager(api, file),
    setInput: (text, images) => {
      api.editor.setText(images?.length ? api.images.holdAgain(text, images) : text);
      api.tui.requestRender();
    },
    chooseModel: () => pickModel(api),
  };
}

/** Runs `/name args…` (arguments read like a shell's, quotes removed). */
export async function runSlash(
  api: AppControl,
  commands: readonly SlashCommand[],
  line: string,
): Promise<void> {
  await runCommandLine(uiContext(api), commands, line, uiOwnCommands(api));
}
