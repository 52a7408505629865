// The terminal UI's question at start (docs/security.md, "Project files that steer relm"): the
// project's files that steer the host and are not trusted as they are now, what each runs, and whether
// to trust them. "Not now" leaves them unused by this UI's sessions, as a headless run does.

import { describeSteering, projectSteering, trustItems, untrusted } from "../../host/project-trust.js";
import type { AppApi } from "../app-api.js";
import { confirm } from "./dialogs.js";

export async function askProjectTrustDialog(app: AppApi): Promise<void> {
  const steering = projectSteering(app.cwd, app.home, app.env);
  const waiting = untrusted(steering);
  if (waiting.length === 0) return;
  const lines = describeSteering({ ...steering, items: waiting });
  const yes = await confirm(
    app.dialogs,
    "Trust this project's files?",
    [`These files in ${steering.project} tell relm what to run:`, ...lines].join("\n"),
    "trust them as they are now",
    "not now (leave them unused)",
  );
  if (yes) {
    trustItems(app.home, steering, waiting);
    app.note(
      `✓ trusted ${lines.filter((l) => !l.startsWith(" ")).join(", ")}; relm trust --revoke undoes it`,
    );
  } else app.note("project files not trusted: this session leaves them unused (relm trust approves them)");
}
