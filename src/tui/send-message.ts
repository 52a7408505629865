// Sending the person's message from the UI: the first one starts the session's host (with the pastes
// and what was chosen before it), later ones go to the live host (revived when it had exited), queued
// while the agent works. Images go with a message that starts a turn, to a model that takes them.

import type { UserImage } from "../agent/core/user-images.js";
import { newSessionId } from "../session/index.js";
import type { Activity } from "./activity.js";
import type { AppControl } from "./app-api.js";
import type { QueueView } from "./queue-view.js";
import { startSpec } from "./start-variables.js";

/** What sending uses of the app beyond its public parts. */
interface Sender extends AppControl {
  readonly activity: Activity;
  readonly queued: QueueView;
}

export async function sendMessage(
  app: Sender,
  text: string,
  variables: { name: string; text: string }[],
  images: UserImage[],
): Promise<void> {
  if (images.length > 0 && app.busy) {
    // The host would refuse them: the message stays in the input, to send when the turn has ended.
    app.editor.setText(text);
    app.note(
      app.theme.warn("⚠ the agent is working: send the image when the turn has ended (Esc interrupts)"),
    );
    return;
  }
  if (app.link.state === "new") {
    app.activity.set("starting");
    app.editor.disableSubmit = true;
    try {
      const id = newSessionId();
      const extra = startSpec(app.home, id, variables, app.pending);
      // With images, the host starts without a task and the message follows as a send (which carries them).
      await app.link.start(images.length > 0 ? undefined : text, extra, id);
    } catch (error) {
      app.activity.set("idle");
      throw error;
    } finally {
      app.editor.disableSubmit = false;
    }
    app.pending.goal = undefined;
    app.pending.gates = undefined;
    app.pending.learn = undefined;
    if (images.length === 0) {
      app.images.clear();
      return;
    }
    variables = [];
  }
  if (!(await app.ensureLive())) return;
  const queuedHere = app.busy;
  const ended = app.activity.ended;
  if (queuedHere) {
    app.queued.add(text);
    app.tui.requestRender();
  }
  const { delivered, imagesNotSent } = await app.link.call("send", {
    text,
    variables,
    attached: true,
    ...(images.length > 0 ? { images } : {}),
  });
  app.images.clear();
  if (imagesNotSent) app.note(app.theme.warn(`⚠ the image was not sent: ${imagesNotSent}`));
  // The host knows whether the message started a turn; the activity shown here follows its events and
  // may lag (a turn a schedule just started, one that just ended).
  // A fast turn may have ended (its events came in) before this reply: then it is not working any more.
  if (delivered === "now" && app.activity.ended === ended) app.activity.set("thinking");
  else if (!queuedHere) {
    app.queued.add(text);
    app.tui.requestRender();
  }
}
