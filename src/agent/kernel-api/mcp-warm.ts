// MCP servers started while the model is still writing the cell that calls them. A server starts on the
// first call that needs it, and a stdio server takes a few hundred milliseconds to start (a Node or
// Python process loading its SDK); the model streams a cell's code for about as long. So the cell's code
// is watched as it streams in, and a configured server it names (`mcp.NAME`, `mcp["NAME"]`) is started
// then, once per session: by the time the cell runs, the call finds it ready.

import type { McpClients, StartInfo } from "../../mcp/index.js";
import { pythonName } from "./mcp-prompt.js";

// Inside the tool call's JSON arguments, so quotes may be escaped. A name must be followed by something
// that is not part of a name: the stream may have cut it in the middle.
const NAMED = /\bmcp\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)(?=[^A-Za-z0-9_])|\bmcp\s*\[\s*\\?["']([^"'\\]+)\\?["']/g;
/** Characters kept from the end of each call's arguments, to find a name split across two deltas. */
const TAIL = 80;

export class McpWarmer {
  private readonly tails = new Map<number, string>();
  private readonly byName = new Map<string, string>();
  /** Servers already asked to start by this agent (a server starts once; asking again is a no-op). */
  private readonly warmed = new Set<string>();

  constructor(
    private readonly clients: McpClients,
    private readonly onStart: (info: StartInfo) => void,
  ) {
    for (const s of clients.servers) {
      this.byName.set(s.name, s.name);
      if (!this.byName.has(pythonName(s.name))) this.byName.set(pythonName(s.name), s.name);
    }
  }

  /** More of tool call `index`'s arguments, as they arrived. */
  push(index: number, delta: string): void {
    const text = (this.tails.get(index) ?? "") + delta;
    let seen = 0;
    for (const match of text.matchAll(NAMED)) {
      seen = match.index + match[0].length;
      const server = this.byName.get(match[1] ?? match[2] ?? "");
      if (server && !this.warmed.has(server)) {
        this.warmed.add(server);
        this.clients.get(server).warm(this.onStart);
      }
    }
    this.tails.set(index, text.slice(Math.max(seen, text.length - TAIL)));
  }

  /** A new model response: its calls are numbered from 0 again. */
  reset(): void {
    this.tails.clear();
  }
}
