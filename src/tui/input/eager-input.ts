// pi-tui draws at most one frame per 16 ms: while children stream output a frame has usually just been
// drawn, so a keystroke's echo would wait for the next slot (up to 16 ms) before its own frame. A person
// feels that lag; streamed output does not. This makes a frame requested while handling input start
// at once, by clearing the throttle before pi-tui handles the key. It reaches into two fields pi-tui
// keeps private (checked at start: if a release renames them, nothing is patched and the UI works as
// before, only with the throttle), so the dependency is pinned in package.json's range.
import type { TUI } from "@mariozechner/pi-tui";

interface Throttle {
  handleInput(data: string): void;
  scheduleRender(): void;
  lastRenderAt: number;
  renderRequested: boolean;
  renderTimer: ReturnType<typeof setTimeout> | undefined;
}

/** Frames caused by input are drawn without waiting for the render interval; false if not possible. */
export function renderInputEagerly(tui: TUI): boolean {
  const internals = tui as unknown as Throttle;
  if (
    typeof internals.handleInput !== "function" ||
    typeof internals.scheduleRender !== "function" ||
    typeof internals.lastRenderAt !== "number"
  )
    return false;
  const handle = internals.handleInput.bind(tui);
  internals.handleInput = (data: string) => {
    if (internals.renderTimer !== undefined) {
      // A frame is waiting for its slot: it is drawn now instead, with the key's effect in it.
      clearTimeout(internals.renderTimer);
      internals.renderTimer = undefined;
    }
    internals.lastRenderAt = 0;
    handle(data);
    // A frame requested before the key (its timer cleared above) is not requested again by pi-tui.
    if (internals.renderRequested && internals.renderTimer === undefined) internals.scheduleRender();
  };
  return true;
}
