import { describe, expect, it } from "vitest";
import { McpWarmer } from "../../src/agent/kernel-api/mcp-warm.js";
import type { McpClients } from "../../src/mcp/index.js";

/** A stand-in for the tree's clients that records which servers were warmed (no process is started). */
function fakeClients(names: string[]) {
  const warmed: string[] = [];
  const clients = {
    servers: names.map((name) => ({ name })),
    get: (name: string) => ({ warm: () => warmed.push(name) }),
  } as unknown as McpClients;
  return { clients, warmed };
}

/** The tool call's arguments as a model streams them: JSON, cut into pieces. */
function stream(warmer: McpWarmer, code: string, size: number): void {
  const json = JSON.stringify({ code });
  for (let i = 0; i < json.length; i += size) warmer.push(0, json.slice(i, i + size));
}

describe("servers named by a cell being written", () => {
  it("finds mcp.NAME and mcp['NAME'] even when the stream cuts them, and only configured servers", () => {
    const { clients, warmed } = fakeClients(["files", "web-api", "fs"]);
    const warmer = new McpWarmer(clients, () => {});
    stream(warmer, 'x = mcp.files.read_text_file(path="a")\ny = mcp["web-api"].get()\nmcp.servers()', 3);
    expect(warmed).toEqual(["files", "web-api"]);
  });

  it("a Python attribute spelling reaches the server; a longer name is not its prefix", () => {
    const { clients, warmed } = fakeClients(["web-api", "fs"]);
    const warmer = new McpWarmer(clients, () => {});
    stream(warmer, "mcp.web_api.search(q='x')\nmcp.fs2.list()", 2);
    expect(warmed).toEqual(["web-api"]);
  });
});
