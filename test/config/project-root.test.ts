// The project a directory belongs to: one answer for sub-agent specs, the harness and MCP servers.
import { mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { projectRoot } from "../../src/config/project-root.js";
import { mcpConfigFiles } from "../../src/mcp/config.js";
import { tempDir } from "../support/cli.js";

describe("projectRoot", () => {
  it("is the nearest .relm/, else the repository root, else the directory; absolute for a relative one", () => {
    const dir = tempDir();
    onTestFinished(dir.cleanup);
    const repo = join(dir.path, "repo");
    const deep = join(repo, "a", "b");
    mkdirSync(join(repo, ".git"), { recursive: true });
    mkdirSync(deep, { recursive: true });
    expect(projectRoot(deep)).toBe(repo);
    expect(projectRoot(relative(process.cwd(), deep))).toBe(repo);
    mkdirSync(join(repo, "a", ".relm"));
    expect(projectRoot(deep)).toBe(join(repo, "a"));
    const lone = join(dir.path, "lone");
    mkdirSync(lone);
    expect(projectRoot(relative(process.cwd(), lone))).toBe(lone);
    // MCP's project files are the same project's.
    expect(mcpConfigFiles(deep, "/h").map((f) => f.path)).toEqual([
      join(repo, "a", ".relm", "mcp.json"),
      join(repo, "a", ".mcp.json"),
      "/h/mcp.json",
    ]);
  });
});
