// A sub-agent's transcript, read-only, in a scrollable overlay: its history from its journal (through
// the host), then its live events as they arrive.
import type { AgentEvent } from "../agent/events.js";
import type { App } from "./app.js";
import { showView } from "./dialogs.js";
import { Transcript } from "./transcript.js";

export async function openChildView(
  app: App,
  id: string,
  label: string,
  views: Set<Transcript>,
): Promise<void> {
  const view = new Transcript(app.theme, { expanded: false, now: () => Date.now() }, id);
  if (await app.ensureLive()) {
    const history = await app.link.call<{ events: AgentEvent[] }>("child.events", { id });
    for (const event of history.events) view.apply({ ...event, agent: id });
  }
  views.add(view);
  try {
    await showView(app.dialogs, `sub-agent ${label} (read-only)`, (width) => view.render(width), {
      follow: true,
      hint: "↑↓ pgup pgdn scroll · m message · c cancel · esc close",
      keys: (data) => {
        if (data === "m" || data === "c") {
          const node = app.agents.get(id);
          if (node) app.panel.handleInput(data);
          return true;
        }
        return false;
      },
    });
  } finally {
    views.delete(view);
  }
}
