// The terminal's own notification when the session needs the person (docs/hooks.md, "Notifications"):
// a `notification` event the host journals (the work finished or failed, a budget stopped it, an
// approval waits) is written as OSC 9 (iTerm2, WezTerm, Windows Terminal, kitty…), OSC 777 (rxvt,
// foot, Ghostty, VTE terminals) and a bell, so whichever the terminal understands reaches the desktop.
// Only events that happen while this UI runs: history replayed on attach is not news.

import type { AgentEvent } from "../agent/core/events.js";

/** The notification text as it may sit inside an OSC: no control characters (ESC or BEL would end it early). */
function payload(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/** The bytes that raise a desktop notification with `text`, for every terminal that knows one of them. */
export function notificationBytes(text: string): string {
  // "relm: " first: an OSC 9 whose text starts with a digit and ";" is ConEmu's progress report.
  const body = payload(`relm: ${text}`);
  return `\u001b]9;${body}\u0007\u001b]777;notify;relm;${payload(text)}\u0007\u0007`;
}

/** Writes a notification for each root `notification` event journaled after `since` (ms). */
export function notificationWriter(write: (bytes: string) => void, since = Date.now()) {
  return (event: AgentEvent): void => {
    if (event.type !== "notification" || event.agent) return;
    const at = Date.parse(event.t);
    if (!(at >= since)) return;
    write(notificationBytes(event.text));
  };
}
