// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are what MCP configuration files hold
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, UsageError } from "../../src/config/errors.js";
import { loadMcpConfig, serverHash, serverSecrets } from "../../src/mcp/index.js";
import { tempDir } from "../support/cli.js";

const dirs: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

function project(files: Record<string, unknown>): { cwd: string; home: string } {
  const root = tempDir("relm-mcp-config-");
  dirs.push(root);
  const cwd = join(root.path, "project");
  const home = join(root.path, "home");
  mkdirSync(join(cwd, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    const full = path.startsWith("~/") ? join(home, path.slice(2)) : join(cwd, path);
    mkdirSync(join(full, ".."), { recursive: true });
    writeFileSync(full, typeof content === "string" ? content : JSON.stringify(content));
  }
  return { cwd, home };
}

describe("MCP configuration", () => {
  it("--mcp-config files are the session's scope and win over project and user servers; a missing one is a usage error", () => {
    const { cwd, home } = project({
      ".mcp.json": { mcpServers: { a: { command: "project-a" }, b: { command: "project-b" } } },
      "editor.json": { mcpServers: { a: { type: "sse", url: "https://example.com/sse" } } },
    });
    const config = loadMcpConfig(cwd, home, {}, [join(cwd, "editor.json")]);
    expect(config.servers.map((s) => [s.name, s.scope, s.transport])).toEqual([
      ["a", "session", "sse"],
      ["b", "project", "stdio"],
    ]);
    expect(() => loadMcpConfig(cwd, home, {}, [join(cwd, "gone.json")])).toThrow(UsageError);
  });

  it("reads .relm/mcp.json, then .mcp.json, then $RELM_HOME/mcp.json; the project's entry wins", () => {
    const { cwd, home } = project({
      ".relm/mcp.json": { mcpServers: { a: { command: "relm-a" } } },
      ".mcp.json": { mcpServers: { a: { command: "shared-a" }, b: { url: "https://example.com/mcp" } } },
      "~/mcp.json": { mcpServers: { b: { command: "user-b" }, c: { command: "user-c", args: ["-x"] } } },
    });
    const config = loadMcpConfig(join(cwd, "sub", "dir"), home, {});
    expect(config.servers.map((s) => [s.name, s.scope, s.command ?? s.url])).toEqual([
      ["a", "project", "relm-a"],
      ["b", "project", "https://example.com/mcp"],
      ["c", "user", "user-c"],
    ]);
    expect(config.servers[1]?.transport).toBe("http");
    expect(config.servers[2]?.args).toEqual(["-x"]);
  });

  it("expands ${VAR} and ${VAR:-default}; an unset variable makes the entry unusable, not the session", () => {
    const { cwd, home } = project({
      ".mcp.json": {
        mcpServers: {
          gh: {
            command: "gh-mcp",
            args: ["--org", "${ORG:-acme}"],
            env: { GITHUB_TOKEN: "${MY_TOKEN}" },
          },
          web: { type: "http", url: "${BASE}/mcp", headers: { Authorization: "Bearer ${WEB_TOKEN}" } },
        },
      },
    });
    const env = { MY_TOKEN: "tok-123456789", BASE: "https://api.example.com" };
    const [gh, web] = loadMcpConfig(cwd, home, env).servers;
    expect(gh?.args).toEqual(["--org", "acme"]);
    expect(gh?.env).toEqual({ GITHUB_TOKEN: "tok-123456789" });
    expect(gh?.problem).toBeUndefined();
    expect(web?.url).toBe("https://api.example.com/mcp");
    expect(web?.problem).toBe(`${join(cwd, ".mcp.json")} uses \${WEB_TOKEN}, which is not set`);
  });

  it("types: stdio by command, http by url, sse and streamable-http by name; disabled entries are kept unusable", () => {
    const { cwd, home } = project({
      ".mcp.json": {
        mcpServers: {
          old: { type: "sse", url: "http://127.0.0.1:1/sse" },
          new: { type: "streamable-http", url: "http://127.0.0.1:1/mcp" },
          off: { command: "x", disabled: true },
        },
      },
    });
    const servers = loadMcpConfig(cwd, home, {}).servers;
    expect(servers.map((s) => s.transport)).toEqual(["sse", "http", "stdio"]);
    expect(servers[2]?.problem).toContain("disabled");
  });

  it("an entry relm cannot read is unusable with the reason; a file that is not JSON is a ConfigError", () => {
    const bad = project({
      ".mcp.json": {
        mcpServers: { ws: { type: "websocket", url: "ws://x" }, nothing: {}, ok: { command: "y" } },
      },
    });
    const servers = loadMcpConfig(bad.cwd, bad.home, {}).servers;
    expect(servers.find((s) => s.name === "ws")?.problem).toContain('unknown "type" "websocket"');
    expect(servers.find((s) => s.name === "nothing")?.problem).toContain('needs "command" (or "url")');
    expect(servers.find((s) => s.name === "ok")?.problem).toBeUndefined();
    const broken = project({ ".mcp.json": "{ not json" });
    expect(() => loadMcpConfig(broken.cwd, broken.home, {})).toThrow(ConfigError);
    expect(() => loadMcpConfig(broken.cwd, broken.home, {})).toThrow(/\.mcp\.json is not valid JSON/);
  });

  it("reads a file saved with a byte order mark, as Windows editors save UTF-8", () => {
    // It was refused as "not valid JSON (Unexpected token '\ufeff' ...)", as config.json once was.
    const { cwd, home } = project({
      ".mcp.json": `\ufeff${JSON.stringify({ mcpServers: { a: { command: "project-a" } } })}\n`,
    });
    expect(loadMcpConfig(cwd, home, {}).servers.map((s) => [s.name, s.transport])).toEqual([["a", "stdio"]]);
  });

  it("env and header values (and a bearer token alone) are the servers' secrets", () => {
    const { cwd, home } = project({
      ".mcp.json": {
        mcpServers: {
          a: { command: "x", env: { KEY: "value-aaaaaaaa" } },
          b: { url: "https://x/mcp", headers: { Authorization: "Bearer token-bbbbbbbb" } },
        },
      },
    });
    const secrets = serverSecrets(loadMcpConfig(cwd, home, {}).servers);
    expect(secrets).toEqual(["value-aaaaaaaa", "Bearer token-bbbbbbbb", "token-bbbbbbbb"]);
  });

  it("the cache key changes with the configuration and not with the file it came from", () => {
    const one = project({ ".mcp.json": { mcpServers: { a: { command: "x", args: ["1"] } } } });
    const two = project({ "~/mcp.json": { mcpServers: { a: { command: "x", args: ["1"] } } } });
    const three = project({ ".mcp.json": { mcpServers: { a: { command: "x", args: ["2"] } } } });
    const hash = (p: { cwd: string; home: string }) =>
      serverHash(loadMcpConfig(p.cwd, p.home, {}).servers[0]!);
    expect(hash(one)).toBe(hash(two));
    expect(hash(one)).not.toBe(hash(three));
  });
});
