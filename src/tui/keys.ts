// The keys the UI itself answers (before the input editor sees them): interrupting, leaving, the agent
// panel, output folding, history search, rewinding (Esc Esc), images (ctrl+v, a dropped file) and large
// pastes.
import { Key, type KeyId, matchesKey } from "@mariozechner/pi-tui";
import type { UserImage } from "../agent/core/user-images.js";
import { commandsFor } from "../commands/table.js";
import type { AppControl } from "./app-api.js";
import { pickFrom } from "./dialogs/dialogs.js";
import { editInEditor } from "./input/external-editor.js";
import { clipboardImage, imageFromPath } from "./input/images.js";
import { detachAsked } from "./leave.js";
import { runSlash } from "./slash.js";
import { pageFullOutput } from "./transcript/output-pager.js";

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
const QUIT_WINDOW_MS = 2000;
/** Two Esc presses this close together are one "Esc Esc". */
const REWIND_WINDOW_MS = 800;

export function installKeys(app: AppControl): void {
  let lastCtrlC = 0;
  let lastEsc = 0;
  app.tui.addInputListener((data) => {
    // Dialogs (overlays) handle their own keys.
    if (app.tui.hasOverlay()) return undefined;
    if (app.panel.focused) {
      if (matchesKey(data, Key.ctrl("c"))) {
        app.unfocusAgents();
        return { consume: true };
      }
      return undefined;
    }
    if (data.startsWith(PASTE_START) && data.endsWith(PASTE_END)) {
      const text = data.slice(PASTE_START.length, -PASTE_END.length);
      // A dropped (or pasted) image file's path: the image goes with the next message.
      const image = imageFromPath(text, app.cwd);
      if (image) {
        attachImage(app, image);
        return { consume: true };
      }
      if (text.length > app.pasteThreshold) {
        app.editor.insertTextAtCursor(app.pastes.hold(text.replace(/\r\n?/g, "\n")));
        app.tui.requestRender();
        return { consume: true };
      }
      return undefined;
    }
    const empty = app.editor.getText().length === 0;
    if (matchesKey(data, Key.ctrl("c"))) {
      if (app.busy) app.interrupt();
      else if (!empty) app.editor.setText("");
      else if (Date.now() - lastCtrlC < QUIT_WINDOW_MS) void app.quit();
      else {
        lastCtrlC = Date.now();
        app.note(app.theme.dim("press ctrl+c again to quit (ctrl+b leaves the session running instead)"));
      }
      // A consumed key draws no frame of its own: the cleared input (or "interrupting") would wait for
      // whatever redraws next.
      app.tui.requestRender();
      return { consume: true };
    }
    if (matchesKey(data, Key.escape) && app.busy) {
      app.interrupt();
      app.tui.requestRender();
      return { consume: true };
    }
    // Esc Esc on an empty input: back to an earlier message (/rewind), as in Claude Code; only once
    // there is a session to rewind (before it, Esc stays quiet).
    // Both presses in one read arrive as "\x1b\x1b" (a loaded machine, a fast typist): Esc Esc as well.
    const both = data === "\x1b\x1b";
    if ((both || matchesKey(data, Key.escape)) && empty && app.link.id) {
      if (both || Date.now() - lastEsc < REWIND_WINDOW_MS) {
        lastEsc = 0;
        void runSlash(app, commandsFor("ui"), "/rewind").then(() => app.tui.requestRender());
        return { consume: true };
      }
      lastEsc = Date.now();
      return undefined;
    }
    const action = KEYS.find(([key, needsEmpty]) => matchesKey(data, key) && (empty || !needsEmpty))?.[2];
    if (!action) return undefined;
    action(app);
    return { consume: true };
  });
}

/** Keys that do one thing: [key, only on an empty input, action]. */
const KEYS: [KeyId, boolean, (app: AppControl) => unknown][] = [
  [Key.ctrl("d"), true, (app) => app.quit()],
  [Key.ctrl("b"), true, (app) => detachAsked(app)],
  [Key.shift("tab"), false, (app) => app.cycleMode()],
  [Key.ctrl("t"), false, (app) => app.focusAgents()],
  [Key.ctrl("o"), false, (app) => app.toggleExpanded()],
  [Key.ctrl("g"), false, editInEditor],
  [Key.ctrl("p"), false, pageFullOutput],
  [Key.ctrl("v"), false, (app) => attachImage(app, clipboardImage(app.env))],
  [Key.ctrl("r"), false, searchHistory],
];

/** An image's marker into the input at the cursor, or why there is none. */
function attachImage(app: AppControl, image: UserImage | { error: string }): void {
  if ("error" in image) app.note(app.theme.warn(`⚠ ${image.error}`));
  else app.editor.insertTextAtCursor(`${app.images.hold(image)} `);
  app.tui.requestRender();
}

async function searchHistory(app: AppControl): Promise<void> {
  const entries = app.history.search("");
  if (entries.length === 0) {
    app.note(app.theme.dim("no history yet in this directory"));
    return;
  }
  const picked = await pickFrom(app.dialogs, {
    title: "Search history (this directory)",
    items: entries.slice(0, 500).map((e, i) => ({ value: String(i), label: e.replace(/\s+/g, " ") })),
    filterable: true,
    hint: "type to search · enter puts it in the input · esc back",
  });
  if (picked === undefined) return;
  app.editor.setText(entries[Number(picked)] ?? "");
  app.tui.requestRender();
}
