// Leaving the terminal UI: stop the session, or leave it running in the background — and when other
// clients follow it (another terminal's UI, `relm attach`, `relm logs -f`), leave it running for them
// and say who they are, whatever key the person pressed.
import type { AppApi } from "./app-api.js";
import { pickFrom } from "./dialogs/dialogs.js";

/** What leaving needs of the app. */
type LeavingApp = Pick<AppApi, "link" | "busy" | "dialogs"> & {
  finish(message: string | undefined, code: number): void;
};

export async function quitSession(app: LeavingApp): Promise<void> {
  const id = app.link.id;
  // Other terminals follow this session: quitting here must not stop it under them.
  const others = await app.link.otherClients();
  if (id && others.length > 0) {
    app.link.detach();
    return app.finish(leftForOthers(id, others), 0);
  }
  if (app.busy && app.link.live) {
    const choice = await pickFrom(app.dialogs, {
      title: "The agent is working",
      items: [
        {
          value: "stop",
          label: "Stop it and quit",
          description: "the running cell is interrupted; the session is saved",
        },
        {
          value: "detach",
          label: "Leave it running in the background",
          description: `relm attach ${id} to come back`,
        },
        { value: "stay", label: "Stay" },
      ],
      filterable: false,
    });
    if (choice === "detach") return detachSession(app);
    if (choice !== "stop") return;
  }
  if (app.link.live) await app.link.stop();
  app.finish(
    id ? `session ${id} saved. Come back with: relm --continue   (or relm attach ${id})` : undefined,
    0,
  );
}

/**
 * /detach and ctrl+b, which the person asked for: before any session has started there is nothing to
 * leave running, so relm says so and stays (a signal still leaves through detachSession).
 */
export function detachAsked(app: Pick<AppApi, "link" | "theme" | "note" | "detach">): void {
  if (app.link.id) {
    app.detach();
    return;
  }
  app.note(
    app.theme.warn(
      "no session to leave running yet: send a message to start one (ctrl+d or /quit leaves relm)",
    ),
  );
}

export function detachSession(app: LeavingApp): void {
  const id = app.link.id;
  if (!id || !app.link.live) {
    app.finish(id ? `session ${id} saved. Come back with: relm --continue` : undefined, 0);
    return;
  }
  app.link.detach();
  app.finish(
    `session ${id} keeps running in the background. relm attach ${id} to come back · relm stop ${id} to stop it`,
    0,
  );
}

function leftForOthers(id: string, others: string[]): string {
  const shown = others.slice(0, 5).map((o) => `  ${o}`);
  if (others.length > 5) shown.push(`  and ${others.length - 5} more`);
  return [
    `session ${id} keeps running: ${others.length === 1 ? "another client follows" : `${others.length} other clients follow`} it:`,
    ...shown,
    `relm attach ${id} to come back · relm stop ${id} to stop it`,
  ].join("\n");
}
