// Where a dialog is drawn. pi-tui places overlays relative to the terminal's rows, but the UI is drawn
// from the top: while the transcript is shorter than the screen, the input and the status line sit near
// the top and a centred dialog opened below them, in rows nobody was looking at (the first-launch picker
// did). So while the UI does not fill the screen, a dialog ends just above the status line (in place of
// the input), or starts at the top when it is taller than that; once the UI fills the screen it is
// centred, as before. The UI's height is only known to pi-tui's compositor: it is read there, by wrapping
// one method pi-tui keeps private (checked first: if a release renames it, dialogs are only centred).
import type { OverlayOptions, TUI } from "@mariozechner/pi-tui";

interface Compositor {
  compositeOverlays(lines: string[], width: number, height: number): string[];
}

/** The rows the UI drew in its last frame (before overlays), per terminal UI. */
const drawnRows = new WeakMap<TUI, number>();

function track(tui: TUI): void {
  if (drawnRows.has(tui)) return;
  const internals = tui as unknown as Compositor;
  if (typeof internals.compositeOverlays !== "function") return;
  const composite = internals.compositeOverlays.bind(tui);
  drawnRows.set(tui, 0);
  internals.compositeOverlays = (lines, width, height) => {
    drawnRows.set(tui, lines.length);
    return composite(lines, width, height);
  };
}

/**
 * The overlay options of a dialog `height()` rows high (as last drawn): the whole width (so the rows
 * behind it are blanked), at most 80% of the screen, placed as said above. `keepBelow` is how many rows
 * at the end of the UI (the status line) the dialog leaves uncovered when it fits above them.
 */
export function dialogPlace(
  tui: TUI,
  height: () => number,
  keepBelow: () => number = () => 0,
): OverlayOptions {
  track(tui);
  return {
    width: "100%",
    maxHeight: "80%",
    // Read by pi-tui at each frame, after the dialog has been drawn for it (so height() is current).
    get row(): number {
      const rows = tui.terminal.rows;
      const h = Math.min(height(), Math.floor(rows * 0.8));
      const drawn = drawnRows.get(tui);
      if (drawn === undefined || drawn >= rows) return Math.max(0, Math.floor((rows - h) / 2));
      return Math.max(0, drawn - keepBelow() - h);
    },
  };
}
