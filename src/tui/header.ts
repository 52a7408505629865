import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { Theme } from "./theme.js";

const HINTS = [
  "/help commands",
  "@ files",
  "esc interrupts",
  "ctrl+t agents",
  "ctrl+o outputs",
  "ctrl+b detach",
  "ctrl+d quit",
];

/** The first lines of the screen: relm, its version and the directory; then as many key hints as fit. */
export function headerBlock(t: Theme, version: string, cwd: string): Component {
  const title = `${t.c.bold("relm")} ${t.dim(version)}  ${t.dim("·")}  ${cwd}`;
  return {
    invalidate() {},
    render(width: number) {
      let line = "";
      for (const h of HINTS) {
        const next = line ? `${line} · ${h}` : h;
        if (next.length > width) break;
        line = next;
      }
      return [truncateToWidth(title, width), t.dim(line)];
    },
  };
}
