// A session as relm web's sessions feed sends it (sessions-feed.ts builds it, the sessions page draws
// it): a type only, beside the host's own listing type, so that the browser's code can name it.
import type { SessionListing } from "../host/states/types.js";

/** The host's listing of the session (its summary, whether a host is live, damage) and its model. */
export interface WebSession extends SessionListing {
  /** The model its journal started with. */
  model: string;
}
