// No model configured: the provider picker opens at once (the first launch), saying why in its own text,
// so nothing of it stays on screen once a model is saved. A message sent while there is no model is not
// lost: it goes back into the input, and the picker opens (or the one already open is waited for).

import type { AppControl } from "./app-api.js";
import { loginFlow, sayLoginSaved } from "./dialogs/login.js";

type Outcome = "saved" | "cancelled" | "interrupted";

/** The picker open for an app, if one is: a second request waits for it instead of opening another. */
const open = new WeakMap<AppControl, Promise<Outcome>>();

/** Opens the provider picker (or waits for the open one); says what was saved, or how to choose later. */
export function chooseFirstModel(app: AppControl): Promise<Outcome> {
  const running = open.get(app);
  if (running) return running;
  const picking = pick(app).finally(() => open.delete(app));
  open.set(app, picking);
  return picking;
}

async function pick(app: AppControl): Promise<Outcome> {
  const result = await loginFlow(
    app.dialogs,
    app.env,
    app.home,
    app.theme.accent("No model is configured yet: choose a provider to start."),
  );
  if (result.status === "saved") sayLoginSaved(app, result);
  else if (result.status === "cancelled")
    app.note(
      app.theme.warn("No model yet: /login chooses one (or run `relm demo` to see relm work without one)."),
    );
  return result.status;
}

/** Whether a message sent now would find no model to start a session with. */
export function lacksModel(app: AppControl): boolean {
  return app.link.state === "new" && !(app.pending.model ?? app.configured.model);
}

/** A message sent with no model: kept in the input while a model is chosen, to send with enter then. */
export async function keepUntilModel(app: AppControl, raw: string): Promise<void> {
  app.editor.setText(raw);
  app.note(app.theme.dim("no model yet: your message stays in the input, to send once a model is chosen"));
  await chooseFirstModel(app);
}
