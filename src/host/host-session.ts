// Prepare a session, host it, fan out its events: what `relm run`, a detached host, line mode and the
// in-process host tests all do. How a session is opened (prepared, resumed, claimed) is the front end's
// business and stays in cli/; this is the part they share.

import type { Agent } from "../agent/core/agent.js";
import type { EventSink } from "../agent/core/events.js";
import { type HostOptions, SessionHost } from "./host.js";
import type { SessionServer } from "./server.js";

/** What opening a session gives: the session, and its socket when it was bound first (a claim). */
interface OpenedSession {
  session: Agent;
  server?: SessionServer;
}

/**
 * Opens a session with `open`, which must give the session `sink` as its event sink, then hosts it and
 * serves it on its socket (`opened.server`, else a new one). Each event goes to `sinks` in order, then to
 * the host; the events of the opening itself (a resume's) reach only `sinks`, as there is no host yet.
 * `sinks` is read at each event, so a caller may add to it later.
 */
export async function hostSession<T extends OpenedSession>(
  open: (sink: EventSink) => Promise<T>,
  options: (opened: T) => Omit<HostOptions, "session" | "title">,
  sinks: EventSink[] = [],
): Promise<{ host: SessionHost; opened: T }> {
  let host: SessionHost | undefined;
  const opened = await open((event) => {
    for (const sink of sinks) sink(event);
    host?.onEvent(event);
  });
  const { session } = opened;
  host = new SessionHost({ ...options(opened), session, title: session.journal.header.title });
  await host.listen(opened.server);
  return { host, opened };
}
