import { html } from "htm/preact";
import type { Connection } from "./api.js";

const WORDS: Record<Connection, string> = {
  connecting: "connecting…",
  open: "live",
  reconnecting: "connection lost, reconnecting…",
  refused: "the server refused the stream: open the address relm web printed (with its token)",
};

/** Whether the page is following the server. */
export function ConnectionNote({ connection }: { connection: Connection }) {
  return html`<span class=${`connection ${connection}`} data-connection=${connection}>${WORDS[connection]}</span>`;
}
