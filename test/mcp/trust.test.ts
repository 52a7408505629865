// Which servers McpClients may start (src/mcp/trust.ts), against a real stdio server that writes its
// pid when it starts: a project's server only once approved as it is, not even warmed before; a damaged
// trust.json approves nothing; the user's own servers need no approval.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { updateTrust } from "../../src/config/trust.js";
import { approveServer, loadMcpConfig, McpClients } from "../../src/mcp/index.js";
import { needsApproval } from "../../src/mcp/trust.js";
import { tempDir } from "../kernel/helpers.js";
import { fixtureWithPidFile } from "../support/mcp.js";
import { until } from "../support/wait.js";

const open: McpClients[] = [];
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
});

async function project(entries: { project?: object; user?: object }) {
  const root = await tempDir("relm-mcp-trust-");
  const cwd = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(cwd, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  if (entries.project) writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: entries.project }));
  if (entries.user) writeFileSync(join(home, "mcp.json"), JSON.stringify({ mcpServers: entries.user }));
  const clients = () => {
    const c = new McpClients(loadMcpConfig(cwd, home, process.env), {
      env: process.env,
      cwd,
      cacheDir: join(home, "cache"),
      clientVersion: "test",
      requestTimeoutMs: 60_000,
      home,
    });
    open.push(c);
    return c;
  };
  return { cwd, home, root, clients };
}

describe("McpClients and approvals", () => {
  it("an unapproved project server is neither warmed nor started; approved, it starts", async () => {
    const { cwd, home, root, clients } = await project({});
    const pidFile = join(root, "probe.pid");
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { probe: fixtureWithPidFile("probe", pidFile) } }),
    );
    const refusing = clients();
    refusing.get("probe").warm();
    await expect(refusing.get("probe").tools()).rejects.toThrow(
      "project MCP server 'probe' (.mcp.json) is not approved: it would run `/bin/sh -c ",
    );
    expect(refusing.status()[0]).toMatchObject({ state: "not approved", trust: "not approved", tools: null });
    expect(refusing.catalog()[0]).toMatchObject({ unapproved: { state: "not approved", file: ".mcp.json" } });
    expect(existsSync(pidFile)).toBe(false);

    // Approved while that session goes on: its next call starts the server.
    const servers = loadMcpConfig(cwd, home, process.env).servers;
    updateTrust(home, (store) => approveServer(store, servers[0]!, false));
    expect((await refusing.get("probe").tools()).map((t) => t.name)).toEqual(["write"]);
    await until(() => (existsSync(pidFile) ? true : undefined));
  });

  it("a damaged trust.json approves nothing, and says why", async () => {
    const { cwd, home, root, clients } = await project({});
    const pidFile = join(root, "probe.pid");
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { probe: fixtureWithPidFile("probe", pidFile) } }),
    );
    writeFileSync(join(home, "trust.json"), "{ damaged");
    await expect(clients().get("probe").tools()).rejects.toThrow(
      /project MCP server 'probe' \(\.mcp\.json\) cannot be checked against your approvals: .*trust\.json could not be read/,
    );
    expect(existsSync(pidFile)).toBe(false);
  });

  it("the user's own server needs no approval", async () => {
    const root = await tempDir("relm-mcp-trust-pid-");
    const pidFile = join(root, "user.pid");
    const { clients } = await project({ user: { mine: fixtureWithPidFile("probe", pidFile) } });
    const c = clients();
    expect((await c.get("mine").tools()).map((t) => t.name)).toEqual(["write"]);
    expect(c.status()[0]).toMatchObject({ trust: "trusted" });
    expect(existsSync(pidFile)).toBe(true);
  });

  it("a session's --mcp-config file needs approval inside the project, a folder named ..x included", async () => {
    const { cwd, home, root } = await project({});
    for (const dir of ["..x", "sub"]) mkdirSync(join(cwd, dir));
    expect(needsApproval("session", join(cwd, "..x", "mcp.json"), cwd, home)).toBe(true);
    expect(needsApproval("session", join(cwd, "sub", "mcp.json"), cwd, home)).toBe(true);
    expect(needsApproval("session", join(root, "mine.json"), cwd, home)).toBe(false);
    expect(needsApproval("session", join(home, "editor-mcp.json"), cwd, home)).toBe(false);
  });
});
