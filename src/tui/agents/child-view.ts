import type { AppControl } from "../app-api.js";
import { askText, confirm, showView } from "../dialogs/dialogs.js";
import { shownEvent } from "../shown-event.js";
import { Transcript } from "../transcript/transcript.js";
import type { PanelActions } from "./agent-panel.js";

async function openChildView(
  app: AppControl,
  id: string,
  label: string,
  views: Set<Transcript>,
): Promise<void> {
  const view = new Transcript(app.theme, { expanded: false, now: () => Date.now() }, id);
  if (await app.ensureLive()) {
    const history = await app.link.call("child.events", { id });
    // Read from the journal, not received live: cleaned as app.onEvent cleans what it receives.
    for (const event of history.events) view.apply(shownEvent({ ...event, agent: id }));
  }
  for (const event of app.liveEvents(id)) view.apply(event);
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

/** What the agent panel's keys do to the selected sub-agent. */
export function childActions(app: AppControl, views: Set<Transcript>): PanelActions {
  const fail = (error: Error) => app.note(app.theme.error(`✗ ${error.message}`));
  return {
    open: (node) => void openChildView(app, node.id, node.label, views).catch(fail),
    message: (node) => void messageChild(app, node.id, node.label).catch(fail),
    cancel: (node) => void cancelChild(app, node.id, node.label).catch(fail),
    close: () => app.unfocusAgents(),
  };
}

async function messageChild(app: AppControl, id: string, label: string): Promise<void> {
  const text = await askText(app.dialogs, {
    title: `Message to ${label}`,
    text: "Read by the sub-agent at its next turn boundary.",
  });
  if (!text?.trim() || !(await app.ensureLive())) return;
  await app.link.call("child.send", { id, text });
  app.note(app.theme.dim(`→ sent to ${label}`));
}

async function cancelChild(app: AppControl, id: string, label: string): Promise<void> {
  const sure = await confirm(
    app.dialogs,
    "Cancel sub-agent",
    `Cancel ${label} and its own sub-agents?`,
    "cancel it",
    "keep it",
  );
  if (!sure || !(await app.ensureLive())) return;
  await app.link.call("child.cancel", { id });
}
