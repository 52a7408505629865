// pi-tui draws at most one frame per 16 ms, whatever a frame costs. Two changes to that throttle:
// - Pacing: a frame whose render took R ms makes the next wait at least max(16 ms, PACE·R), so rendering
//   takes at most about a fifth of a core. One block that never settles (a 200 KB paragraph or code
//   block) is rendered whole on every frame (docs/benchmarks.md), and at 16 ms a frame the UI spent
//   most of a core redrawing it; now its frames are fewer, the text the same.
// - Urgency: a frame a person waits for is drawn at once: a key's echo (while children stream output a
//   frame has usually just been drawn, and the key would wait for the next slot), a resize, and the
//   frame that completes a block (drawNow, from the app).
// It reaches into fields pi-tui keeps private (checked at start: if a release renames them, nothing is
// patched and the UI works as before, only with the plain throttle), so the dependency is pinned in
// package.json's range.
import type { TUI } from "@mariozechner/pi-tui";

interface Throttle {
  handleInput(data: string): void;
  scheduleRender(): void;
  doRender(): void;
  lastRenderAt: number;
  renderRequested: boolean;
  renderTimer: ReturnType<typeof setTimeout> | undefined;
}

/** pi-tui's own interval (TUI.MIN_RENDER_INTERVAL_MS), which its scheduler measures from lastRenderAt. */
const MIN_INTERVAL_MS = 16;
/** The next frame waits PACE times the last one's render: rendering takes at most 1/(PACE+1) of a core. */
const PACE = 4;

function throttleOf(tui: TUI): Throttle | undefined {
  const t = tui as unknown as Throttle;
  const known =
    typeof t.handleInput === "function" &&
    typeof t.scheduleRender === "function" &&
    typeof t.doRender === "function" &&
    typeof t.lastRenderAt === "number";
  return known ? t : undefined;
}

/** A frame waiting for its slot is drawn now instead; one requested next starts at once. */
function hurry(t: Throttle): void {
  if (t.renderTimer !== undefined) {
    clearTimeout(t.renderTimer);
    t.renderTimer = undefined;
  }
  t.lastRenderAt = 0;
}

/** Paces frames to their cost and draws input's at once; false if pi-tui's throttle is not as known. */
export function paceFrames(tui: TUI, now: () => number = () => performance.now()): boolean {
  const t = throttleOf(tui);
  if (!t) return false;
  const render = t.doRender.bind(tui);
  t.doRender = () => {
    const started = now();
    render();
    // pi-tui waits MIN_INTERVAL_MS from lastRenderAt (set just before this frame): moved later by the rest.
    const interval = Math.max(MIN_INTERVAL_MS, PACE * (now() - started));
    t.lastRenderAt += interval - MIN_INTERVAL_MS;
  };
  const handle = t.handleInput.bind(tui);
  t.handleInput = (data: string) => {
    hurry(t);
    handle(data);
    // A frame requested before the key (its timer cleared above) is not requested again by pi-tui.
    if (t.renderRequested && t.renderTimer === undefined) t.scheduleRender();
  };
  return true;
}

/** The next frame is drawn at once, not at its paced slot: a resize, the end of a block. */
export function drawNow(tui: TUI): void {
  const t = throttleOf(tui);
  if (t) hurry(t);
  tui.requestRender();
  if (t?.renderRequested && t.renderTimer === undefined) t.scheduleRender();
}
